import { Address, type Cell as CoreCell } from '@ton/core';
import type { Blockchain, SmartContract, TickOrTock } from '@ton/sandbox';
import { beginCell, cellToBoc, loadShardAccount, parseBoc, Slice } from '@tonstream/block';

/** shard_account with account_none: what a liteserver and the emulator see for an address nobody used. */
export const ACCOUNT_NONE_B64 = Buffer.from(cellToBoc(beginCell().storeRef(beginCell().storeBit(0).endCell()).storeHash('00'.repeat(32)).storeUint(0, 64).endCell())).toString('base64');
/** Longer ShardAccount BoCs (base64) cannot be the sandbox's placeholder for an unknown address. */
const PLACEHOLDER_MAX_B64 = 200;

/**
 * @ton/sandbox stands for an unknown address with an uninit account of zero balance, never paid for
 * and without transactions; on TON that address has no account at all (account_none), which makes
 * transactions on it start from orig_status nonexist. Swap the placeholder for account_none.
 */
export function normalizeAccount(b64: string): string {
  if (b64.length > PLACEHOLDER_MAX_B64) return b64;
  const table = parseBoc(Buffer.from(b64, 'base64'));
  const sa = loadShardAccount(new Slice(table, table.roots[0], 'ShardAccount'));
  const a = sa.account;
  const placeholder =
    a.type === 'account' && a.state.type === 'uninit' && a.balance.grams === 0n && Object.keys(a.balance.other).length === 0 && a.lastTransLt === 0n && a.lastPaid === 0 && a.storageUsed.cells === 0n && sa.lastTransLt === 0n;
  return placeholder ? ACCOUNT_NONE_B64 : b64;
}

/** What the emulator needs to run one transaction besides the account and the message. */
export type RunParams = { lt: bigint; now: number; randomSeed: Uint8Array };

/** A committed transaction: its BoC and the account state after it (both as the emulator returned them). */
export type EmulatedTx = { ok: true; txBoc: Uint8Array; shardAccount: string; before: string };
export type EmulationFailure = { ok: false; error: string; exitCode?: number };

/**
 * The private fields of @ton/sandbox 0.41's SmartContract that its own `runCommon` writes after a
 * transaction. We run the executor ourselves (to choose the lt, and to skip the @ton/core parse of
 * every transaction and account that `receiveMessage` does), so we write them the same way. The
 * test "emulator keeps sandbox state" fails if a sandbox upgrade renames them.
 */
type ContractInternals = { _account: string; parsedAccount: unknown; lastTxTime: number };

/** @ton/sandbox 0.41's protected Blockchain.storage (services/localnet get-state.test.ts fails if it goes). */
type SandboxInternals = { storage: { knownContracts(): SmartContract[] } };

function internals(c: SmartContract): ContractInternals {
  return c as unknown as ContractInternals;
}

/** A BoC passed where the executor expects a @ton/core Cell: it only calls `toBoc()` on it. */
function bocArg(boc: Uint8Array): CoreCell {
  const buf = Buffer.from(boc.buffer, boc.byteOffset, boc.byteLength);
  return { toBoc: () => buf } as unknown as CoreCell;
}

export type Emulator = {
  /** Runs an inbound message on its destination; a failure leaves the account as it was. */
  runMessage(dest: Address, messageBoc: Uint8Array, p: RunParams): Promise<EmulatedTx | EmulationFailure>;
  /** Whether the destination would accept the message now; nothing is committed. */
  wouldAccept(dest: Address, messageBoc: Uint8Array, p: RunParams): Promise<{ ok: true } | EmulationFailure>;
  runTickTock(account: Address, which: TickOrTock, p: RunParams): Promise<EmulatedTx | EmulationFailure>;
  /** The ShardAccount BoC (base64) the sandbox holds for the address (an empty account if unknown). */
  shardAccount(address: Address): Promise<string>;
  /** Every address the sandbox holds a contract for (unknown addresses asked about included: their state is account_none). */
  knownAddresses(): Address[];
};

/** Runs transactions with the sandbox's executor against the sandbox's account storage. */
export function createEmulator(bc: Blockchain): Emulator {
  const common = (contract: SmartContract, p: RunParams) => ({
    config: bc.configBase64,
    libs: bc.libs ?? null,
    verbosity: 'short' as const,
    shardAccount: normalizeAccount(internals(contract)._account),
    now: p.now,
    lt: p.lt,
    randomSeed: Buffer.from(p.randomSeed),
    ignoreChksig: false,
    debugEnabled: false,
  });
  const commit = (contract: SmartContract, res: Awaited<ReturnType<Blockchain['executor']['runTransaction']>>, now: number): EmulatedTx | EmulationFailure => {
    if (!res.result.success) return { ok: false, error: res.result.error, exitCode: res.result.vmResults?.vmExitCode };
    const c = internals(contract);
    const before = normalizeAccount(c._account);
    c._account = res.result.shardAccount;
    c.parsedAccount = undefined;
    c.lastTxTime = now;
    return { ok: true, txBoc: Buffer.from(res.result.transaction, 'base64'), shardAccount: res.result.shardAccount, before };
  };
  return {
    async runMessage(dest, messageBoc, p) {
      const contract = await bc.getContract(dest);
      const res = await bc.executor.runTransaction({ ...common(contract, p), message: bocArg(messageBoc) });
      return commit(contract, res, p.now);
    },
    async wouldAccept(dest, messageBoc, p) {
      const contract = await bc.getContract(dest);
      const res = await bc.executor.runTransaction({ ...common(contract, p), message: bocArg(messageBoc) });
      return res.result.success ? { ok: true } : { ok: false, error: res.result.error, exitCode: res.result.vmResults?.vmExitCode };
    },
    async runTickTock(account, which, p) {
      const contract = await bc.getContract(account);
      const res = await bc.executor.runTickTock({ ...common(contract, p), which });
      return commit(contract, res, p.now);
    },
    async shardAccount(address) {
      return normalizeAccount(internals(await bc.getContract(address))._account);
    },
    knownAddresses: () => (bc as unknown as SandboxInternals).storage.knownContracts().map((c) => c.address),
  };
}

export function coreAddress(workchain: number, hashHex: string): Address {
  return new Address(workchain, Buffer.from(hashHex, 'hex'));
}
