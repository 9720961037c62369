/**
 * No silent gaps in the fetcher, against the real local network and the real Kafka broker:
 * - account states: a liteserver that answers "state not in db" to every getAccountState does not
 *   cost a single state while another configured server has them; only when every configured
 *   server answers so is a state published as missing (and counted);
 * - checkpoints: a checkpoint whose block has another root hash stops the fetcher process (exit 1,
 *   both hashes named, nothing published); `--reset` starts it over from FETCHER_START_SEQNO; with
 *   the local network's own global config the same checkpoint means the localnet was reset.
 * - a liteserver answering "no such account" (an empty state) for an account the block leaves active
 *   is not believed: the state comes from another server.
 * The "not here" liteservers are ADNL proxies in this process: they forward every query to the
 * localnet's liteserver and answer getAccountState with the upstream error (or an empty state) instead.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beginCell } from '@ton/core';
import { decodeBlock, parseBoc } from '@tonstream/block';
import { createKafka, decodeRawBlock, type RawBlock, topicNames } from '@tonstream/bus';
import {
  type BlockBus,
  type Checkpoint,
  checkpointKey,
  connectLiteservers,
  createFetcherMetrics,
  type LiteApi,
  loadFetcherConfig,
  openFetcher,
  openKafkaBus,
} from '@tonstream/fetcher-service';
import { createLiteServer, ErrorCode, type LiteServer, type LiteServerAddress, type LiteServerHandlers, LiteErrorAnswer, readGlobalConfig, writeGlobalConfig } from '@tonstream/liteserver-emulator';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { LiteSingleEngine } from 'ton-lite-client';
import { Functions, type liteServer_accountState, type tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWholeTopic } from '../support/kafka-topics.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS || '127.0.0.1:9092';
/** Masterchain blocks each in-process fetcher publishes before the test looks at them. */
const BLOCKS_PER_RUN = 6;
const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const logger = createLogger({ level: 'error', bindings: { module: 'fetcher-gaps-test' } });
const prefixes: string[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];
let dir: string;
let localnet: ServiceProcess;
/** The localnet's own global config: carries the localnet marker. */
let localnetConfig: string;
let real: LiteServerAddress;
let lite: LiteApi;

/** What an upstream liteserver answers for a state it never stored (validator/db/rootdb.cpp, via LiteQuery::request_block_state). */
function stateNotInDb(id: tonNode_blockIdExt): string {
  const shard = BigInt.asUintN(64, BigInt(id.shard)).toString(16).toUpperCase().padStart(16, '0');
  const hex = (b: Buffer) => b.toString('hex').toUpperCase();
  return `cannot load state for (${id.workchain},${shard},${id.seqno}):${hex(id.rootHash)}:${hex(id.fileHash)} : state not in db`;
}

/** What an empty state stands for: account_none$0, hashed by @ton/core. */
const ACCOUNT_NONE_HASH = beginCell().storeBit(false).endCell().hash().toString('base64');

type Proxy = { address: LiteServerAddress; goneAnswers: number; emptyAnswers: number };

/**
 * A liteserver forwarding what the fetcher asks to the localnet's, except getAccountState: "state not
 * in db", or with `lie: 'empty'` the real answer with an empty state ("no such account").
 */
async function startProxy(lie: 'gone' | 'empty' = 'gone'): Promise<Proxy> {
  const engine = new LiteSingleEngine({ host: `tcp://${real.host}:${real.port}`, publicKey: real.publicKey });
  await new Promise<void>((resolve) => engine.once('ready', () => resolve()));
  const forward =
    (f: Parameters<LiteSingleEngine['query']>[0]) =>
    async (params: unknown): Promise<never> => {
      try {
        return (await engine.query(f, params)) as never;
      } catch (err) {
        throw new LiteErrorAnswer(ErrorCode.error, (err as Error).message); // the message as the localnet gave it
      }
    };
  const proxy: Proxy = { address: undefined as unknown as LiteServerAddress, goneAnswers: 0, emptyAnswers: 0 };
  const handlers = {
    'liteServer.getMasterchainInfo': forward(Functions.liteServer_getMasterchainInfo),
    'liteServer.getMasterchainInfoExt': forward(Functions.liteServer_getMasterchainInfoExt),
    'liteServer.lookupBlock': forward(Functions.liteServer_lookupBlock),
    'liteServer.getBlock': forward(Functions.liteServer_getBlock),
    'liteServer.getAccountState': async (p: { id: tonNode_blockIdExt }) => {
      if (lie === 'gone') {
        proxy.goneAnswers++;
        throw new LiteErrorAnswer(ErrorCode.notready, stateNotInDb(p.id));
      }
      const answer: liteServer_accountState = await forward(Functions.liteServer_getAccountState)(p);
      proxy.emptyAnswers++;
      return { ...answer, state: Buffer.alloc(0) };
    },
  } as LiteServerHandlers;
  const server: LiteServer = await createLiteServer({ handlers, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  cleanups.push(() => server.close(), () => engine.close());
  proxy.address = { host: server.address, port: server.port, publicKey: server.publicKey };
  return proxy;
}

/** A global config listing `servers`, without the localnet marker: to the fetcher it is a real network. */
function networkConfig(name: string, servers: LiteServerAddress[]): string {
  const path = join(dir, `${name}.global.config.json`);
  writeGlobalConfig(path, servers);
  return path;
}

function newPrefix(name: string): string {
  const prefix = `fetchergaps_${runId}_${name}.`;
  prefixes.push(prefix);
  return prefix;
}

const kafka = () => createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: `fetcher-gaps-test-${runId}` });

/** Every message of a prefix's blocks topic, in offset order per partition. */
async function readBlocks(prefix: string): Promise<RawBlock[]> {
  return readWholeTopic(kafka(), topicNames(prefix).blocks, decodeRawBlock);
}

/** Runs an in-process fetcher from the head over `servers` until it published BLOCKS_PER_RUN masterchain blocks. */
async function fetchFromHead(name: string, servers: LiteServerAddress[]) {
  const prefix = newPrefix(name);
  const metrics = createFetcherMetrics(createRegistry('fetcher'));
  const cfg = loadFetcherConfig({ FETCHER_GLOBAL_CONFIG: networkConfig(name, servers), KAFKA_BROKERS, KAFKA_TOPIC_PREFIX: prefix, FETCHER_POLL_INTERVAL_MS: '100' });
  const opened = await openFetcher(cfg, { logger, metrics });
  const run = opened.fetcher.run();
  let checkpointed: number;
  try {
    await eventually(
      `${name}: ${BLOCKS_PER_RUN} masterchain blocks published`,
      async () => {
        const { plan, publishedSeqno } = opened.fetcher.status();
        return plan && publishedSeqno !== undefined && publishedSeqno >= plan.from + BLOCKS_PER_RUN - 1 ? true : undefined;
      },
      90_000,
      100,
    );
  } finally {
    await opened.close();
    await run;
    checkpointed = opened.fetcher.status().checkpointSeqno ?? 0;
  }
  // Blocks up to the checkpoint are counted in the metrics; those sent while stopping may or may not be.
  const published = await readBlocks(prefix);
  const blocks = published.filter((b) => b.mc_seqno <= checkpointed);
  const missing = (await metrics.missingStates.get()).values[0]?.value ?? 0;
  return { blocks, published, missing };
}

/** Hash of a published `Account` BoC; an empty one stands for account_none. */
function stateHash(boc: Uint8Array): string {
  if (boc.length === 0) return ACCOUNT_NONE_HASH;
  const cells = parseBoc(boc);
  return Buffer.from(cells.hash(cells.roots[0])).toString('base64');
}

/** Accounts each published block touched (from its transactions) and the accounts it carries states of. */
function touchedAndCarried(blocks: RawBlock[]) {
  return blocks.map((raw) => {
    const decoded = decodeBlock(raw.boc);
    const after = new Map(decoded.transactions.map((t) => [t.hash, t.account_state_hash_after]));
    for (const s of raw.account_states) {
      expect(stateHash(s.boc), `state of ${s.account}`).toBe(after.get(s.last_trans_hash));
    }
    return { id: `${raw.workchain}:${raw.shard}:${raw.seqno}`, touched: decoded.accounts.map((a) => a.account), carried: raw.account_states.map((s) => s.account) };
  });
}

beforeAll(async () => {
  const main = join(import.meta.dirname, '../../services/fetcher/dist/main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npx tsc -b\` first (npm test does)`);
  dir = mkdtempSync(join(tmpdir(), 'tonstream-fetcher-gaps-'));
  localnetConfig = join(dir, 'localnet', 'global.config.json');
  localnet = startService(
    'localnet',
    { LOCALNET_PORT: '0', LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '400', LOCALNET_TRAFFIC_RATE: '4', METRICS_PORT: '0', LOG_LEVEL: 'warn' },
    join(dir, 'logs'),
  );
  await eventually('the localnet global config', async () => (existsSync(localnetConfig) ? true : undefined), 60_000, 50, () => {
    if (localnet.child.exitCode !== null) throw new Error(`localnet exited with ${localnet.child.exitCode}:\n${localnet.output()}`);
  });
  [real] = readGlobalConfig(localnetConfig);
  lite = await connectLiteservers([real], {});
});

afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  lite?.pool.close();
  await localnet?.stop();
  const admin = kafka().admin();
  await admin.connect();
  await admin.deleteTopics({ topics: prefixes.flatMap((p) => [topicNames(p).blocks, topicNames(p).checkpoints]) }).catch(() => {});
  await admin.disconnect();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('fetcher: account states one liteserver says it has not', () => {
  it('loses none while another configured server has them', async () => {
    const gone = await startProxy();
    const { blocks, missing } = await fetchFromHead('onegone', [gone.address, real]);

    expect(gone.goneAnswers, 'the proxy was asked for states').toBeGreaterThan(0);
    expect(missing).toBe(0);
    const perBlock = touchedAndCarried(blocks);
    for (const b of perBlock) expect(b.carried, `states of ${b.id}`).toEqual(b.touched);
    expect(perBlock.reduce((n, b) => n + b.touched.length, 0), 'traffic touched accounts').toBeGreaterThan(5);
  });

  it('takes no "no such account" for an account the block leaves active: the state comes from the other server', async () => {
    const liar = await startProxy('empty');
    const { blocks, missing } = await fetchFromHead('emptyliar', [liar.address, real]);

    expect(liar.emptyAnswers, 'the proxy was asked for states').toBeGreaterThan(0);
    expect(missing).toBe(0);
    const perBlock = touchedAndCarried(blocks); // every state, empty ones included, hashes to the block's
    for (const b of perBlock) expect(b.carried, `states of ${b.id}`).toEqual(b.touched);
    expect(blocks.flatMap((b) => b.account_states).filter((s) => s.boc.length > 0).length, 'active accounts').toBeGreaterThan(5);
  });

  it('publishes them as missing, counted, when every configured server says so', async () => {
    const [a, b] = [await startProxy(), await startProxy()];
    const { blocks, published, missing } = await fetchFromHead('allgone', [a.address, b.address]);

    expect(a.goneAnswers).toBeGreaterThan(0);
    expect(b.goneAnswers).toBeGreaterThan(0);
    const perBlock = touchedAndCarried(blocks);
    for (const blk of perBlock) expect(blk.carried, `states of ${blk.id}`).toEqual([]);
    const touched = perBlock.reduce((n, blk) => n + blk.touched.length, 0);
    expect(touched).toBeGreaterThan(5);
    // Every state of the checkpointed blocks is counted; of blocks published while stopping, some may be.
    const touchedAll = touchedAndCarried(published).reduce((n, blk) => n + blk.touched.length, 0);
    expect(missing).toBeGreaterThanOrEqual(touched);
    expect(missing).toBeLessThanOrEqual(touchedAll);
  });
});

describe('fetcher: a checkpoint of another chain', () => {
  /** Writes a checkpoint at `seqno` with a root hash no block has, under the live key, with the fetcher's own codec. */
  async function writeWrongCheckpoint(prefix: string, seqno: number): Promise<{ key: string; checkpoint: Checkpoint }> {
    const head = await lite.head();
    const key = checkpointKey(head.zeroState, { kind: 'live' });
    const checkpoint: Checkpoint = { mc_seqno: seqno, root_hash: Buffer.alloc(32, 0xab).toString('base64'), zero_state: head.zeroState, written_at_ms: Date.now() };
    const bus: BlockBus = await openKafkaBus({ kafka: kafka(), topics: topicNames(prefix), clientId: `fetcher-gaps-test-${runId}` });
    try {
      await bus.writeCheckpoint(key, checkpoint);
    } finally {
      await bus.close();
    }
    return { key, checkpoint };
  }

  async function startFetcher(name: string, env: Record<string, string>, args: string[] = []): Promise<ServiceProcess> {
    const p = startService('fetcher', { KAFKA_BROKERS, FETCHER_POLL_INTERVAL_MS: '100', METRICS_PORT: String(await freePort()), LOG_LEVEL: 'info', ...env }, join(dir, 'logs', name), args);
    cleanups.push(() => p.stop());
    return p;
  }

  async function readCheckpoint(prefix: string, key: string): Promise<Checkpoint | undefined> {
    const bus = await openKafkaBus({ kafka: kafka(), topics: topicNames(prefix), clientId: `fetcher-gaps-test-${runId}` });
    try {
      return await bus.readCheckpoint(key);
    } finally {
      await bus.close();
    }
  }

  it('stops the fetcher on a real network, naming both root hashes; --reset starts over from FETCHER_START_SEQNO', async () => {
    const prefix = newPrefix('mismatch');
    const at = (await lite.head()).last.seqno - 2;
    const chainRoot = (await lite.masterchainBlockId(at)).root_hash;
    const { key, checkpoint } = await writeWrongCheckpoint(prefix, at);
    const env = { FETCHER_GLOBAL_CONFIG: networkConfig('mismatch', [real]), KAFKA_TOPIC_PREFIX: prefix, FETCHER_START_SEQNO: String(at + 1) };

    const stopped = await startFetcher('mismatch-1', env);
    const code = await stopped.exited();
    expect(code).toBe(1);
    const line = stopped.output().split('\n').find((l) => l.includes('"level":"error"')) ?? '';
    expect(line).toContain('stopped: checkpoint');
    for (const part of [checkpoint.root_hash, chainRoot, `seqno ${at}`, '--reset', 'FETCHER_GLOBAL_CONFIG']) expect(line).toContain(part);
    expect(await readBlocks(prefix)).toEqual([]);
    expect(await readCheckpoint(prefix, key)).toEqual(checkpoint);

    const start = (await lite.head()).last.seqno;
    const reset = await startFetcher('mismatch-2', { ...env, FETCHER_START_SEQNO: String(start) }, ['--reset']);
    await reset.waitFor(/--reset: ignoring the stored checkpoint/, 60_000);
    const written = await eventually('a checkpoint of the real chain', async () => {
      const cp = await readCheckpoint(prefix, key);
      return cp && cp.mc_seqno >= start + 2 ? cp : undefined;
    });
    expect(written.root_hash).toBe((await lite.masterchainBlockId(written.mc_seqno)).root_hash);
    expect(await reset.stop()).toBe(0);
    const mc = (await readBlocks(prefix)).filter((b) => b.workchain === -1).map((b) => b.seqno);
    expect(Math.min(...mc)).toBe(start);
    expect([...new Set(mc)].sort((x, y) => x - y)).toEqual(Array.from({ length: Math.max(...mc) - start + 1 }, (_, i) => start + i));
  });

  it('starts from the new genesis, logged as a localnet reset, when the global config is the local network\'s', async () => {
    const prefix = newPrefix('localnetreset');
    const at = (await lite.head()).last.seqno - 2;
    await writeWrongCheckpoint(prefix, at);
    const start = (await lite.head()).last.seqno;
    const p = await startFetcher('localnet-reset', { FETCHER_GLOBAL_CONFIG: localnetConfig, KAFKA_TOPIC_PREFIX: prefix, FETCHER_START_SEQNO: String(start) });
    const line = await p.waitFor(/local network was reset/, 60_000);
    expect(line).toContain(`seqno ${at}`);
    await p.waitFor(/"msg":"starting".*"reason":"localnet_reset"/, 30_000);
    await eventually('blocks from the start seqno', async () => ((await readBlocks(prefix)).some((b) => b.workchain === -1 && b.seqno === start) ? true : undefined), 60_000);
    expect(await p.stop()).toBe(0);
    const mc = (await readBlocks(prefix)).filter((b) => b.workchain === -1).map((b) => b.seqno);
    expect(Math.min(...mc)).toBe(start);
  });
});
