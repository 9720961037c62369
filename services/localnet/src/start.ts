/**
 * The localnet service: the local TON chain producing a round of blocks every LOCALNET_ROUND_MS,
 * optional wallet traffic, and an emulated liteserver serving it; clients connect through the
 * global config this writes. Wiring only (`runService` runs it, main.ts); see README.md.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { toBase64 } from '@tonstream/block';
import { createLiteServer, ed25519KeyPairFromSeed, writeGlobalConfig } from '@tonstream/liteserver-emulator';
import { type Chain, createChain, createTraffic, restoreChain } from '@tonstream/localnet';
import { createStopSteps, type Logger, type ServiceContext, type Stop } from '@tonstream/runtime';
import { type LocalnetConfig, STATE_FILES } from './config.js';
import { createLiteHandlers } from './lite-handlers.js';
import { createLocalnetMetrics } from './metrics.js';
import { appendLedger, catchUpLedger, createAccountLedger } from './ledger.js';
import { createRoundLoop } from './round-loop.js';
import { createRoundReporter } from './round-report.js';
import { prefundedWalletsOnChain, walletsBanner, writeWalletsFile } from './wallets-file.js';
import { type ChainIdentity, loadOrCreateKeySeed, readChainIdentity, writeChainIdentity } from './state-dir.js';

/** Rounds between snapshots while running (a minute at the default round time), besides the one at shutdown. */
const SNAPSHOT_EVERY_ROUNDS = 60;

export async function startLocalnet(config: LocalnetConfig, ctx: ServiceContext): Promise<Stop> {
  const { logger, registry } = ctx;
  const steps = createStopSteps(logger);
  const metrics = createLocalnetMetrics(registry);
  mkdirSync(config.stateDir, { recursive: true });
  const stateFile = (name: string) => join(config.stateDir, name);

  const { chain, identity } = await openChain(config, stateFile, logger);
  const traffic = config.trafficRate > 0 ? await createTraffic(chain, { seed: identity.seed, ratePerRound: config.trafficRate, ...(config.trafficWallets > 0 ? { wallets: config.trafficWallets } : {}), logger: logger.child({ module: 'traffic' }) }) : undefined;
  const snapshot = async (reason: string) => {
    const t0 = performance.now();
    await chain.snapshot(stateFile(STATE_FILES.snapshot));
    logger.info('snapshot written', { reason, mc_seqno: chain.head().seqno, duration_ms: Math.round(performance.now() - t0) });
  };

  const accountLedger = config.ledgerPath && config.ledgerAccounts ? createAccountLedger(chain) : undefined;
  if (config.ledgerPath) {
    const written = await catchUpLedger(config.ledgerPath, chain, accountLedger);
    if (written > 0) logger.info('ledger caught up with the kept history', { ledger: config.ledgerPath, rounds: written });
  }
  const reporter = createRoundReporter({ logger, metrics, roundMs: chain.roundMs });
  ctx.health(reporter.health);
  const loop = createRoundLoop({
    intervalMs: chain.roundMs,
    round: async () => {
      const t0 = performance.now();
      const r = traffic ? await traffic.step() : await chain.produceRound();
      reporter.round(r, performance.now() - t0, chain.pending());
      if (config.ledgerPath) await appendLedger(config.ledgerPath, r, accountLedger);
      if (config.stopAtSeqno > 0 && r.mc.id.seqno >= config.stopAtSeqno) {
        logger.info('LOCALNET_STOP_AT_SEQNO reached: no more rounds, still serving', { mc_seqno: r.mc.id.seqno });
        void loop.stop();
      }
      if (r.mc.id.seqno % SNAPSHOT_EVERY_ROUNDS === 0) await snapshot('periodic');
    },
    onError: (err) => reporter.failed(err, chain.head().seqno + 1),
  });

  const server = await createLiteServer({
    host: config.host,
    port: config.port,
    keyPair: ed25519KeyPairFromSeed(loadOrCreateKeySeed(stateFile(STATE_FILES.serverKey))),
    handlers: createLiteHandlers(chain),
    getMasterchainSeqno: () => chain.head().seqno,
    logger: logger.child({ module: 'liteserver' }),
  });
  mkdirSync(dirname(config.globalConfigPath), { recursive: true });
  const zero = chain.zerostate();
  writeGlobalConfig(config.globalConfigPath, [{ host: config.advertisedHost || server.address, port: server.port, publicKey: server.publicKey }], {
    zeroState: { rootHash: toBase64(zero.rootHash), fileHash: toBase64(zero.fileHash) },
    localnet: true,
  });
  const wallets = await prefundedWalletsOnChain(chain);
  writeWalletsFile(stateFile(STATE_FILES.wallets), wallets);
  process.stdout.write(walletsBanner(wallets, stateFile(STATE_FILES.wallets)));

  // Stopping runs these last first: stop rounds, snapshot, close the liteserver (then runService closes metrics).
  steps.add('liteserver', () => server.close());
  steps.add('snapshot', () => snapshot('shutdown'));
  steps.add('rounds', async () => {
    await loop.stop();
    traffic?.stop();
  });

  if (config.stopAtSeqno === 0 || chain.head().seqno < config.stopAtSeqno) loop.start();
  logger.info('localnet serving', {
    liteserver: `${server.address}:${server.port}`,
    public_key: server.publicKey.toString('base64'),
    global_config: config.globalConfigPath,
    mc_seqno: chain.head().seqno,
    round_ms: chain.roundMs,
    shards: chain.shards.length,
    traffic_rate: config.trafficRate,
  });
  return steps.stop;
}

/** Continues the chain of the state directory, or creates one (with --reset, or when there is none). */
async function openChain(config: LocalnetConfig, stateFile: (name: string) => string, logger: Logger): Promise<{ chain: Chain; identity: ChainIdentity }> {
  const chainLogger = logger.child({ module: 'chain' });
  const snapshotPath = stateFile(STATE_FILES.snapshot);
  const identityPath = stateFile(STATE_FILES.chain);
  const identity = config.reset ? undefined : readChainIdentity(identityPath);
  if (identity && existsSync(snapshotPath)) {
    const chain = await restoreChain(snapshotPath, { logger: chainLogger });
    logger.info('chain restored', { snapshot: snapshotPath, mc_seqno: chain.head().seqno, seed: identity.seed });
    if (chain.roundMs !== config.roundMs || chain.shards.length !== config.shards || identity.seed !== config.seed) {
      logger.warn('LOCALNET_ROUND_MS, LOCALNET_SHARDS and LOCALNET_SEED apply to new chains only; start with --reset to use them', {
        round_ms: chain.roundMs,
        shards: chain.shards.length,
        seed: identity.seed,
      });
    }
    if (!chain.validatorSet()) {
      logger.warn('this chain was made by an older version: no validator set, signatures or prefunded wallets; start with --reset to get them', { snapshot: snapshotPath });
    }
    return { chain, identity };
  }
  const reason = config.reset ? '--reset' : !existsSync(snapshotPath) ? 'no snapshot' : `no ${STATE_FILES.chain}`;
  const chain = await createChain({ seed: config.seed, roundMs: config.roundMs, shards: config.shards, historyRounds: config.keepRounds, stateHistoryRounds: config.keepStateRounds, logger: chainLogger });
  const created: ChainIdentity = { seed: config.seed, createdAt: new Date().toISOString() };
  // Identity last: a crash in between leaves no identity, so the next start makes a new chain again.
  rmSync(identityPath, { force: true });
  await chain.snapshot(snapshotPath);
  writeChainIdentity(identityPath, created);
  logger.info('chain created', { reason, seed: config.seed, shards: config.shards, round_ms: config.roundMs, state_dir: config.stateDir });
  return { chain, identity: created };
}
