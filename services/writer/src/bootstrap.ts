/**
 * State bootstrap: the latest state of every account of every shard at masterchain block S, read
 * from shard states (ShardStateUnsplit BoCs: a liteserver's getState answers, or files dumped from a
 * node) and written as the pipeline's account state records (the decoder's normalization and
 * contract facts), in bounded batches.
 *
 * Every record says `mc_block_seqno: S`, so the API shows it once the watermark reaches S (start
 * the index at S: the states before S are then all there is). The tables keep an account's state
 * with the highest `last_trans_lt`: a state indexed after S has a higher lt and wins; at an equal lt
 * the state is the same. Writing again writes the same rows (idempotent).
 *
 * Resumable: after each batch the part's progress (accounts written, the last key) is recorded
 * (bootstrap-progress.ts); a later run at the same S skips finished parts and enters the others
 * above their last key, so a killed run repeats at most one batch.
 */
import { accountStateRecord, decodeBlock } from '@tonstream/block';
import { describeAccount } from '@tonstream/contracts';
import { TonstreamError } from '@tonstream/errors';
import { type LiteReads, toTlBlockId } from '@tonstream/lite-client';
import type { AccountStateRecord } from '@tonstream/records';
import { indexStart, recordBatch, type Store, writeBatch } from '@tonstream/store';
import { type PartProgress, readProgress, saveProgress, WHOLE } from './bootstrap-progress.js';
import { BocReader, type ByteSource, fileSource, memorySource, readShardStateHead, type ShardStateHead, shardAccounts, stateLabel, stateShardTops, subtreeBoc } from './state-boc.js';

export const DEFAULT_BOOTSTRAP_BATCH = 2_000;
const MASTERCHAIN = -1;
const ROOT_SHARD = 1n << 63n;
const KEY_SPACE = 2 ** 256;

export class BootstrapError extends TonstreamError {
  readonly code = 'BOOTSTRAP';
}

export type BootstrapProgress = {
  /** The shard state, `workchain:SHARD:seqno`. */
  block: string;
  /** Which part of how many (shard states at S). */
  part: number;
  parts: number;
  /** Accounts of this part written so far (earlier runs included). */
  accounts: number;
  /** Accounts of this part, when known before the walk (states read into memory); else null. */
  blockAccounts: number | null;
  /** How far the walk is through the part's address space, 0..1 (keys are hashes: accounts spread evenly). */
  position: number;
  /** Accounts written by this run, every part. */
  totalAccounts: number;
  /** The part was finished by an earlier run and is skipped. */
  alreadyDone: boolean;
};

export type BootstrapOptions = {
  /** Account states per writeBatch. @default DEFAULT_BOOTSTRAP_BATCH */
  batchSize?: number;
  /** Ignore the recorded progress at S: every part from its first account. @default false */
  restart?: boolean;
  /** After every batch, and for each part skipped as done. */
  onProgress?: (p: BootstrapProgress) => void;
};

export type BootstrapResult = {
  mcSeqno: number;
  /** Shard states at S. */
  blocks: number;
  /** Accounts written by this run. */
  accounts: number;
  /** Accounts earlier runs had written (finished parts, and the start of a resumed one). */
  already: number;
  skipped: { account: string; error: string }[];
};

/** A shard state to write: where to read it, and what it must be. */
type Part = { label: string; open: () => Promise<{ reader: BocReader; head: ShardStateHead; inMemory: boolean }> };

/**
 * Every account at S from the liteserver: S's shard tops from the masterchain block, each shard state
 * (the masterchain's too) with liteServer.getState.
 */
export async function bootstrapStates(reads: LiteReads, store: Store, mcSeqno: number, options: BootstrapOptions = {}): Promise<BootstrapResult> {
  const mc = (await reads.lookupBlock(MASTERCHAIN, ROOT_SHARD, { seqno: mcSeqno })).id;
  if (mc.workchain !== MASTERCHAIN || mc.seqno !== mcSeqno) throw new BootstrapError(`lookupBlock(${mcSeqno}) answered ${mc.workchain}:${mc.seqno}`);
  const mcBlock = await reads.block(mc);
  const tops = decodeBlock(mcBlock.data, { rootHash: mc.rootHash.toString('hex'), fileHash: mc.fileHash.toString('hex') }).shards;
  const parts: Part[] = [mc, ...tops.map(toTlBlockId)].map((id) => {
    const label = stateLabel({ workchain: id.workchain, shard: BigInt.asUintN(64, BigInt(id.shard)), seqno: id.seqno });
    return {
      label,
      open: async () => {
        const state = await reads.state(id);
        if (state.id.seqno !== id.seqno || state.id.workchain !== id.workchain) throw new BootstrapError(`getState(${label}) answered the state of ${state.id.workchain}:${state.id.seqno}`);
        const reader = new BocReader(memorySource(state.data, `getState(${label})`));
        reader.verify();
        const head = readShardStateHead(reader);
        if (stateLabel(head) !== label) throw new BootstrapError(`getState(${label}) answered a state of ${stateLabel(head)}`);
        return { reader, head, inMemory: true };
      },
    };
  });
  return bootstrapParts(store, mcSeqno, parts, options);
}

export type StateFileOptions = BootstrapOptions & {
  /** Page cache of each file. */
  pageBytes?: number;
  pages?: number;
  /** Warnings (e.g. no masterchain state among the files to check the others against). */
  onWarning?: (message: string) => void;
};

/**
 * Every account at S from shard-state files (a ShardStateUnsplit BoC each, as a node dumps them),
 * read in place. The files say which blocks they are the states of: a masterchain state must be of
 * block S, and with one among the files every other must be a shard top S names (McStateExtra's
 * shard_hashes); the records take each state's gen_utime.
 */
export async function bootstrapStateFiles(paths: string[], store: Store, mcSeqno: number, options: StateFileOptions = {}): Promise<BootstrapResult> {
  const open = (path: string) => {
    const source: ByteSource = fileSource(path, { pageBytes: options.pageBytes, pages: options.pages });
    try {
      const reader = new BocReader(source);
      return { reader, head: readShardStateHead(reader) };
    } catch (err) {
      source.close();
      throw err;
    }
  };
  // The heads first (each file's root cell): which states these are, checked before anything is written.
  const heads = paths.map((path) => {
    const { reader, head } = open(path);
    reader.source.close();
    return { path, head, label: stateLabel(head) };
  });
  const seen = new Map<string, string>();
  for (const h of heads) {
    const other = seen.get(h.label);
    if (other !== undefined) throw new BootstrapError(`${h.path} and ${other} are both the state of ${h.label}`);
    seen.set(h.label, h.path);
  }
  const masters = heads.filter((h) => h.head.workchain === MASTERCHAIN);
  if (masters.length > 1) throw new BootstrapError(`more than one masterchain state: ${masters.map((m) => m.path).join(', ')}`);
  const [master] = masters;
  if (master && master.head.seqno !== mcSeqno) throw new BootstrapError(`${master.path} is the masterchain state of block ${master.head.seqno}, not of ${mcSeqno}`);
  if (master) {
    const { reader, head } = open(master.path);
    let tops;
    try {
      tops = stateShardTops(reader, head);
    } finally {
      reader.source.close();
    }
    const named = new Set(tops.map((t) => stateLabel(t)));
    for (const h of heads) {
      if (h !== master && !named.has(h.label)) throw new BootstrapError(`${h.path} is the state of ${h.label}, which is not a shard top of masterchain block ${mcSeqno} (those are ${[...named].join(', ') || 'none'})`);
    }
    const missing = [...named].filter((l) => !seen.has(l));
    if (missing.length > 0) options.onWarning?.(`no state file of ${missing.join(', ')} (a shard top of ${mcSeqno}): its accounts are not written`);
  } else {
    options.onWarning?.(`no masterchain state among the files: nothing to check that the shard states are those of masterchain block ${mcSeqno}`);
  }
  const ordered = [...heads].sort((a, b) => a.head.workchain - b.head.workchain || (a.head.shard < b.head.shard ? -1 : a.head.shard > b.head.shard ? 1 : 0));
  const parts: Part[] = ordered.map((h) => ({
    label: h.label,
    open: async () => {
      const { reader, head } = open(h.path);
      reader.verify();
      return { reader, head, inMemory: false };
    },
  }));
  return bootstrapParts(store, mcSeqno, parts, options);
}

async function bootstrapParts(store: Store, mcSeqno: number, parts: Part[], options: BootstrapOptions): Promise<BootstrapResult> {
  const batchSize = options.batchSize ?? DEFAULT_BOOTSTRAP_BATCH;
  const recorded = options.restart ? new Map<string, PartProgress>() : await readProgress(store, mcSeqno);
  const result: BootstrapResult = { mcSeqno, blocks: parts.length, accounts: 0, already: 0, skipped: [] };
  for (const [n, part] of parts.entries()) {
    const base = { block: part.label, part: n + 1, parts: parts.length };
    const before = recorded.get(part.label);
    if (before?.done) {
      result.already += before.accounts;
      options.onProgress?.({ ...base, accounts: before.accounts, blockAccounts: before.accounts, position: 1, totalAccounts: result.accounts, alreadyDone: true });
      continue;
    }
    const { reader, head, inMemory } = await part.open();
    try {
      const after = before && before.lastAccount !== '' ? BigInt(`0x${before.lastAccount}`) : undefined;
      const progress: PartProgress = before ?? { part: part.label, accounts: 0, lastAccount: '', done: false };
      result.already += progress.accounts;
      // A state in memory is counted first (cheap); a file's progress is told by its address space.
      let blockAccounts: number | null = null;
      if (inMemory) {
        blockAccounts = progress.accounts + count(shardAccounts(reader, head, after));
      }
      const report = (position: number) => options.onProgress?.({ ...base, accounts: progress.accounts, blockAccounts, position, totalAccounts: result.accounts, alreadyDone: false });
      let batch: AccountStateRecord[] = [];
      let last = '';
      // One batch is written (then its progress recorded) while the next is read: at most two exist.
      let writing: Promise<void> = Promise.resolve();
      const flush = async () => {
        const [records, lastKey] = [batch, last];
        batch = [];
        await writing;
        writing = (async () => {
          await writeBatch(store, recordBatch({ accountStates: records }));
          progress.accounts += records.length;
          result.accounts += records.length;
          progress.lastAccount = lastKey;
          await saveProgress(store, mcSeqno, progress);
        })();
        // Not left unhandled if it fails before the next await of it.
        writing.catch(() => undefined);
      };
      let position = 0;
      for (const e of shardAccounts(reader, head, after)) {
        try {
          const st = accountStateRecord(subtreeBoc(reader, e.accountCell), { account: e.account, lastTransLt: e.lastTransLt, lastTransHash: e.lastTransHash, mcSeqno, genUtime: head.genUtime });
          batch.push({ ...st, contract: describeAccount(st) });
        } catch (err) {
          result.skipped.push({ account: e.account, error: (err as Error).message });
        }
        last = e.account.slice(e.account.indexOf(':') + 1);
        position = Number(e.key) / KEY_SPACE;
        if (batch.length >= batchSize) {
          await flush();
          report(position);
        }
      }
      if (batch.length > 0) await flush();
      await writing;
      if (last !== progress.lastAccount) {
        progress.lastAccount = last;
        await saveProgress(store, mcSeqno, progress);
      }
      progress.done = true;
      await saveProgress(store, mcSeqno, progress);
      report(1);
    } finally {
      reader.source.close();
    }
  }
  await saveProgress(store, mcSeqno, { part: WHOLE, accounts: result.already + result.accounts, lastAccount: '', done: true });
  return result;
}

/** Whether a bootstrap at `mcSeqno` finished (every part), by the recorded progress. */
export async function bootstrapDone(store: Store, mcSeqno: number): Promise<boolean> {
  return (await readProgress(store, mcSeqno)).get(WHOLE)?.done === true;
}

/**
 * The seqno the index began at (packages/store `indexStart`: the first seqno of the fetcher run that
 * started it), once it has one: polled every `everyMs` until `timeoutMs`.
 */
export async function waitForIndexStart(store: Store, options: { everyMs?: number; timeoutMs?: number; onWait?: () => void } = {}): Promise<number> {
  const everyMs = options.everyMs ?? 250;
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  let told = false;
  for (;;) {
    const start = await indexStart(store).catch((err: unknown) => {
      // Before the writer or the API made the database, there is nothing to read yet.
      if (/UNKNOWN_DATABASE|UNKNOWN_TABLE|doesn't exist|does not exist/i.test((err as Error).message)) return null;
      throw err;
    });
    if (start !== null) return start;
    if (Date.now() >= deadline) throw new BootstrapError(`the index has no start seqno after ${options.timeoutMs} ms (is the fetcher running?)`);
    if (!told) options.onWait?.();
    told = true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function count(items: Iterable<unknown>): number {
  let n = 0;
  for (const _ of items) n++;
  return n;
}
