/**
 * The bootstrap beside a running index (the local stack: localnet, fetcher, decoder, writer, tracer,
 * emulator and API as processes): bootstrapped at S, the idle prefunded wallets answer v3 as soon as
 * the index's own watermark reaches S, with the liteserver's balance; a wallet that then transacts is
 * answered with its newer state (seqno 1), the bootstrap's state replaced.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Address, internal, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json } from './api-server.js';
import { raw, signedTransfer, startLocalStack, type LocalStack } from '../support/local-stack.js';

const S = 12;
const ROOT = join(import.meta.dirname, '..', '..');
let stack: LocalStack;

beforeAll(async () => {
  // States of every round kept (an archive node's): a loaded machine must not make block S's states gone before the bootstrap reads them.
  stack = await startLocalStack({ name: 'bootstrap-e2e', roundMs: 1000, localnetEnv: { LOCALNET_KEEP_STATE_ROUNDS: '100000' } });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

const q = (addresses: string[]) => addresses.map((a) => `address=${encodeURIComponent(a)}`).join('&');
const getJson = async (path: string) => (await (await fetch(`${stack.apiBase}${path}`)).json()) as Json;

describe('state bootstrap beside the index', () => {
  it('serves the idle wallets from the watermark at S on, and their newer states after a transfer', async () => {
    await stack.until(`the chain past ${S}`, async () => ((await stack.client.getMasterchainInfo()).last.seqno > S ? true : undefined), 60_000, 200);
    const started = Date.now();
    const out = spawnSync(process.execPath, [join(ROOT, 'services/writer/dist/bootstrap-main.js'), '--seqno', String(S), '--global-config', join(stack.dir, 'localnet', 'global.config.json')], {
      cwd: ROOT,
      env: { ...process.env, CLICKHOUSE_DATABASE: stack.database },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(out.status, out.stderr).toBe(0);
    console.log(`bootstrap-e2e at ${S}: ${out.stdout.trim()} (${(Date.now() - started) / 1000} s with the process start)`);

    const wallets = await stack.wallets();
    const addresses = wallets.map((k) => raw(k.contract.address));
    const mc = (await stack.client.lookupBlockByID({ workchain: -1, shard: '-9223372036854775808', seqno: S })).id;
    const answers = await stack.until('every prefunded wallet in /walletStates', async () => {
      const got = (await getJson(`/api/v3/walletStates?${q(addresses)}`)).wallets as Json[] | undefined;
      return got?.length === addresses.length ? got : undefined;
    });
    for (const [i, k] of wallets.entries()) {
      const truth = await stack.client.getAccountState(k.contract.address, mc);
      expect(answers.find((a) => a.address === addresses[i]), addresses[i]).toMatchObject({
        status: 'active',
        seqno: 0,
        wallet_type: k.w.version === 'v4r2' ? 'wallet v4 r2' : 'wallet v5 r1',
        balance: truth.balance.coins.toString(),
      });
    }
    const states = (await getJson(`/api/v3/accountStates?${q(addresses)}`)).accounts as Json[];
    expect(states.map((s) => s.status)).toEqual(addresses.map(() => 'active'));

    // The first wallet transacts: its state indexed after S replaces the bootstrap's.
    const [sender] = wallets;
    await stack.client.sendMessage(signedTransfer(sender, [internal({ to: Address.parse(`0:${'ab'.repeat(32)}`), value: toNano(1), bounce: false })]));
    const after = await stack.until('the sender at seqno 1', async () => {
      const [w] = ((await getJson(`/api/v3/walletStates?${q([addresses[0]])}`)).wallets as Json[] | undefined) ?? [];
      return w?.seqno === 1 ? w : undefined;
    });
    expect(BigInt(after.balance as string) < BigInt(answers.find((a) => a.address === addresses[0])!.balance as string)).toBe(true);
  });
});
