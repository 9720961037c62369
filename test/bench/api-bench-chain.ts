/**
 * A synthetic chain for bench:api made of real records: every transaction, message, block and account
 * state is a real decoded mainnet record (test/fixtures/mainnet/blocks through decodeBlock) or a real
 * localnet account state (test/fixtures/localnet/account-states through accountStateRecord), copied
 * with its ids rewritten: accounts, hashes, lts, times, seqnos and the links between them (prev
 * transaction, the in/out sides of one message, prev blocks). Bodies, descriptions, fees and BoCs keep
 * their real sizes.
 *
 * Shape: `mcBlocks` masterchain blocks, each with MC_TXS masterchain transactions and committing one
 * block of each of the four basechain shards, which share `shardTxPerMc` transactions by the shard of
 * their account. Accounts are skewed: message counterparties follow a Zipf law of exponent
 * `zipfExponent` over them; a transaction that does not receive a waiting message draws its account
 * the same way, except that the first `accounts` transactions visit every account once (so each has
 * transactions and a state). An internal message an
 * out message creates is received by a transaction in a later masterchain block (so most messages have
 * both an out and an in row, as on mainnet); the receiver is its destination. After every shard block
 * each account it touched gets a stored state, as the pipeline stores one state per account per block.
 * Deterministic: the same options give the same chain.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { accountStateRecord, decodeBlock } from '@tonstream/block';
import { type AccountStateRecord, type BlockId, type BlockRecord, type MessageRow, type TransactionRow, transactionRow } from '@tonstream/records';
import { emptyBatch, type RecordBatch } from '@tonstream/store';
import { ROOT } from '../support/processes.js';

export type ChainOptions = {
  seed: number;
  mcBlocks: number;
  /** Basechain transactions per masterchain block (over its four shard blocks). */
  shardTxPerMc: number;
  accounts: number;
  zipfExponent: number;
  firstMcSeqno: number;
  firstUtime: number;
  /** Masterchain blocks per yielded batch. */
  mcBlocksPerBatch: number;
};

/** Masterchain transactions per masterchain block (tick-tock of the system accounts, as on mainnet). */
const MC_TXS = 3;
const MC_BLOCK_INTERVAL_S = 3;
/** Shards of workchain 0, by the top two bits of the account id. */
const SHARDS = ['2000000000000000', '6000000000000000', 'A000000000000000', 'E000000000000000'];
const MC_SHARD = '8000000000000000';
const FIRST_SHARD_SEQNO = 50_000_000;
/** Internal messages waiting for a receiver; past this the oldest are never received (ext-out like). */
const MAX_PENDING = 100_000;
const ZERO_HASH = Buffer.alloc(32).toString('base64');

const MAINNET_BLOCKS = join(ROOT, 'test/fixtures/mainnet/blocks');
const LOCALNET = join(ROOT, 'test/fixtures/localnet');

type TxTemplate = { tx: TransactionRow; inMsg: MessageRow | null; outMsgs: MessageRow[] };
type StateKind = 'active' | 'uninit' | 'frozen';

export type Templates = {
  shardTxs: TxTemplate[];
  mcTxs: TxTemplate[];
  shardBlocks: BlockRecord[];
  mcBlocks: BlockRecord[];
  states: Record<StateKind, AccountStateRecord>;
};

/** The fixture records the chain is made of. */
export function loadTemplates(): Templates {
  const t: Templates = { shardTxs: [], mcTxs: [], shardBlocks: [], mcBlocks: [], states: loadStateTemplates() };
  for (const file of readdirSync(MAINNET_BLOCKS).sort()) {
    const d = decodeBlock(readFileSync(join(MAINNET_BLOCKS, file)), { mcSeqno: 1 });
    const isMc = d.block.workchain === -1;
    // The key block's record is the masterchain's odd one out; ordinary blocks are the common case.
    if (!d.block.key_block && d.block.tx_count > 0) (isMc ? t.mcBlocks : t.shardBlocks).push(d.block);
    const rows = new Map(d.messages.map((m) => [`${m.tx_hash} ${m.direction} ${m.hash}`, m]));
    for (const full of d.transactions) {
      const tx = transactionRow(full);
      const msg = (direction: 'in' | 'out', hash: string) => {
        const m = rows.get(`${tx.hash} ${direction} ${hash}`);
        if (!m) throw new Error(`${file}: no ${direction} message ${hash} of ${tx.hash}`);
        return m;
      };
      (isMc ? t.mcTxs : t.shardTxs).push({ tx, inMsg: tx.in_msg && msg('in', tx.in_msg.hash), outMsgs: tx.out_msgs.map((m) => msg('out', m.hash)) });
    }
  }
  return t;
}

function loadStateTemplates(): Record<StateKind, AccountStateRecord> {
  const fixtures = (JSON.parse(readFileSync(join(LOCALNET, 'account-states.json'), 'utf8')) as { states: { status: string; file: string; account: string }[] }).states;
  const state = (status: StateKind) => {
    const f = fixtures.find((s) => s.status === status)!;
    return accountStateRecord(readFileSync(join(LOCALNET, f.file)), { account: f.account, lastTransLt: '1', lastTransHash: ZERO_HASH, mcSeqno: 1, genUtime: 1 });
  };
  return { active: state('active'), uninit: state('uninit'), frozen: state('frozen') };
}

/** xorshift128: fast, seeded, good enough to scatter ids. */
export function createRandom(seed: number) {
  let a = seed | 0 || 1;
  let b = 0x9e3779b9;
  let c = 0x243f6a88;
  let d = 0xb7e15162;
  const u32 = () => {
    const t = a ^ (a << 11);
    a = b;
    b = c;
    c = d;
    d = (d ^ (d >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    return d;
  };
  for (let i = 0; i < 16; i++) u32();
  const bytes = Buffer.alloc(32);
  return {
    u32,
    /** Uniform in [0, 1). */
    float: () => u32() / 0x1_0000_0000,
    int: (n: number) => Math.floor((u32() / 0x1_0000_0000) * n),
    hash() {
      for (let i = 0; i < 32; i += 4) bytes.writeUInt32LE(u32(), i);
      return bytes.toString('base64');
    },
    hex64() {
      for (let i = 0; i < 32; i += 4) bytes.writeUInt32LE(u32(), i);
      return bytes.toString('hex').toUpperCase();
    },
  };
}
type Random = ReturnType<typeof createRandom>;

/**
 * Draws account indexes by a Zipf law over ranks (`zipf`); `covering` first returns every index once
 * in a shuffled order (until `covered`), then draws like `zipf`.
 */
function accountSampler(rng: Random, n: number, exponent: number) {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const cdf = new Float64Array(n);
  let total = 0;
  for (let r = 0; r < n; r++) cdf[r] = total += 1 / (r + 1) ** exponent;
  const zipf = () => {
    const u = rng.float() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  let visited = 0;
  return { zipf, covering: () => (visited < n ? order[visited++] : zipf()), covered: () => visited >= n };
}

type AccountInfo = { address: string; shard: number; kind: StateKind; balance: bigint; lastHash: string; lastLt: string; stateHash: string };

/** Yields the chain as record batches of `mcBlocksPerBatch` masterchain blocks, in chain order. */
export function* generateChain(templates: Templates, o: ChainOptions): Generator<RecordBatch> {
  const rng = createRandom(o.seed);
  const accounts: AccountInfo[] = [];
  for (let r = 0; r < o.accounts; r++) {
    const hex = rng.hex64();
    // The most active accounts are deployed contracts; the tail is mostly wallets, some never deployed or frozen.
    const roll = rng.float();
    const kind: StateKind = r < 1000 || roll < 0.85 ? 'active' : roll < 0.95 ? 'uninit' : 'frozen';
    const balance = BigInt(Math.floor(10 ** (6 + rng.float() * 9)));
    accounts.push({ address: `0:${hex}`, shard: parseInt(hex[0], 16) >> 2, kind, balance, lastHash: ZERO_HASH, lastLt: '0', stateHash: rng.hash() });
  }
  const byAddress = new Map(accounts.map((a) => [a.address, a]));
  const mcAccounts = new Map<string, AccountInfo>();
  const sample = accountSampler(rng, o.accounts, o.zipfExponent);
  // Messages created in earlier masterchain blocks, waiting for their receiver.
  let pending: MessageRow[] = [];
  let pendingHead = 0;
  let batch = emptyBatch();
  let prevMc: BlockRecord | null = null;
  const prevShard: (BlockRecord | null)[] = SHARDS.map(() => null);

  for (let k = 0; k < o.mcBlocks; k++) {
    const mcSeqno = o.firstMcSeqno + k;
    const utime = o.firstUtime + k * MC_BLOCK_INTERVAL_S;
    const ltBase = BigInt(mcSeqno) * 1_000_000n;
    const created: MessageRow[] = [];

    const makeTx = (tpl: TxTemplate, account: AccountInfo, lt: bigint, blockRef: BlockId, received: MessageRow | null): TransactionRow => {
      const hash = rng.hash();
      const ltText = lt.toString();
      const row = { direction: 'in' as const, tx_hash: hash, tx_lt: ltText, mc_block_seqno: mcSeqno };
      let inMsg: MessageRow | null = null;
      if (received) inMsg = { ...received, ...row };
      else if (tpl.inMsg) {
        const external = tpl.inMsg.source === null;
        inMsg = {
          ...tpl.inMsg,
          hash: rng.hash(),
          source: external ? null : accounts[sample.zipf()].address,
          destination: account.address,
          created_lt: external ? null : (lt - 1n).toString(),
          created_at: external ? null : String(utime - MC_BLOCK_INTERVAL_S),
          ...(tpl.inMsg.hash_norm === undefined ? {} : { hash_norm: rng.hash() }),
          ...row,
        };
      }
      const outMsgs = tpl.outMsgs.map((m, i): MessageRow => {
        const out: MessageRow = {
          ...m,
          hash: rng.hash(),
          source: account.address,
          destination: m.destination === null ? null : account.address.startsWith('-1:') ? m.destination : accounts[sample.zipf()].address,
          created_lt: (lt + 1n + BigInt(i)).toString(),
          created_at: String(utime),
          direction: 'out',
          tx_hash: hash,
          tx_lt: ltText,
          mc_block_seqno: mcSeqno,
        };
        if (out.destination !== null && out.destination.startsWith('0:')) created.push(out);
        return out;
      });
      const stateAfter = rng.hash();
      const tx: TransactionRow = {
        ...tpl.tx,
        account: account.address,
        hash,
        lt: ltText,
        now: utime,
        mc_block_seqno: mcSeqno,
        prev_trans_hash: account.lastHash,
        prev_trans_lt: account.lastLt,
        account_state_hash_before: account.stateHash,
        account_state_hash_after: stateAfter,
        block_ref: blockRef,
        in_msg: inMsg && { hash: inMsg.hash },
        out_msgs: outMsgs.map((m) => ({ hash: m.hash })),
      };
      account.lastHash = hash;
      account.lastLt = ltText;
      account.stateHash = stateAfter;
      const json = JSON.stringify(tx);
      batch.transactions.push({ record: tx, json });
      for (const m of inMsg ? [inMsg, ...outMsgs] : outMsgs) batch.messages.push({ record: m, json: JSON.stringify(m) });
      return tx;
    };

    const storeStates = (touched: Set<AccountInfo>) => {
      for (const a of touched) {
        // A random walk of up to 1 TON per block, never below zero.
        const next = a.balance + BigInt(rng.int(2_000_000_000)) - 1_000_000_000n;
        if (next >= 0n) a.balance = next;
        const s: AccountStateRecord = {
          ...templates.states[a.kind],
          account: a.address,
          account_state_hash: a.stateHash,
          balance: a.balance.toString(),
          last_trans_lt: a.lastLt,
          last_trans_hash: a.lastHash,
          mc_block_seqno: mcSeqno,
          gen_utime: utime,
        };
        batch.accountStates.push({ record: s, json: JSON.stringify(s) });
      }
    };

    // Basechain: draw the transactions, then split them into their accounts' shard blocks.
    const drawn: { tpl: TxTemplate; account: AccountInfo; received: MessageRow | null }[] = [];
    for (let i = 0; i < o.shardTxPerMc; i++) {
      const tpl = templates.shardTxs[rng.int(templates.shardTxs.length)];
      const internal = tpl.inMsg !== null && tpl.inMsg.source !== null;
      // Until every account has been drawn, no transaction takes its account from a waiting message.
      const received = internal && sample.covered() && pendingHead < pending.length ? pending[pendingHead++] : null;
      const account = received ? byAddress.get(received.destination!)! : accounts[sample.covering()];
      drawn.push({ tpl, account, received });
    }
    const shardBlocks: BlockRecord[] = [];
    SHARDS.forEach((shard, s) => {
      const seqno = FIRST_SHARD_SEQNO + s * 10_000_000 + k;
      const blockRef = { workchain: 0, shard, seqno };
      const startLt = ltBase + BigInt(s + 1) * 100_000n;
      let lt = startLt;
      const touched = new Set<AccountInfo>();
      let txCount = 0;
      for (const d of drawn) {
        if (d.account.shard !== s) continue;
        lt += 1n;
        makeTx(d.tpl, d.account, lt, blockRef, d.received);
        lt += BigInt(d.tpl.outMsgs.length);
        touched.add(d.account);
        txCount++;
      }
      storeStates(touched);
      const block = blockRecord(templates.shardBlocks[k % templates.shardBlocks.length], rng, blockRef, mcSeqno, utime, startLt, lt, txCount, prevShard[s]);
      prevShard[s] = block;
      shardBlocks.push(block);
    });

    // Masterchain: the system accounts' transactions of the templates, in turn.
    const mcRef = { workchain: -1, shard: MC_SHARD, seqno: mcSeqno };
    let lt = ltBase;
    const touchedMc = new Set<AccountInfo>();
    for (let i = 0; i < MC_TXS; i++) {
      const tpl = templates.mcTxs[(k * MC_TXS + i) % templates.mcTxs.length];
      let account = mcAccounts.get(tpl.tx.account);
      if (!account) mcAccounts.set(tpl.tx.account, (account = { address: tpl.tx.account, shard: -1, kind: 'active', balance: 10n ** 15n, lastHash: ZERO_HASH, lastLt: '0', stateHash: rng.hash() }));
      lt += 1n;
      makeTx(tpl, account, lt, mcRef, null);
      lt += BigInt(tpl.outMsgs.length);
      touchedMc.add(account);
    }
    storeStates(touchedMc);
    const mcBlock = blockRecord(templates.mcBlocks[k % templates.mcBlocks.length], rng, mcRef, mcSeqno, utime, ltBase, lt, MC_TXS, prevMc);
    (mcBlock as BlockRecord & { shard_tops?: BlockId[] }).shard_tops = shardBlocks.map((b) => ({ workchain: b.workchain, shard: b.shard, seqno: b.seqno }));
    prevMc = mcBlock;
    for (const b of [mcBlock, ...shardBlocks]) batch.blocks.push({ record: b, json: JSON.stringify(b) });

    // This block's messages are received from the next block on.
    if (pendingHead > 0) {
      pending = pending.slice(pendingHead);
      pendingHead = 0;
    }
    pending.push(...created);
    if (pending.length > MAX_PENDING) pending = pending.slice(pending.length - MAX_PENDING);

    if ((k + 1) % o.mcBlocksPerBatch === 0 || k === o.mcBlocks - 1) {
      yield batch;
      batch = emptyBatch();
    }
  }
}

/** A template block record as block `id` of masterchain block `mcSeqno`, after `prev` (its ids and hashes rewritten). */
function blockRecord(tpl: BlockRecord, rng: Random, id: BlockId, mcSeqno: number, utime: number, startLt: bigint, endLt: bigint, txCount: number, prev: BlockRecord | null): BlockRecord {
  const prevId = { workchain: id.workchain, shard: id.shard, seqno: id.seqno - 1 };
  return {
    ...tpl,
    ...id,
    root_hash: rng.hash(),
    file_hash: rng.hash(),
    mc_block_seqno: mcSeqno,
    gen_utime: String(utime),
    start_lt: startLt.toString(),
    end_lt: endLt.toString(),
    min_ref_mc_seqno: mcSeqno - 1,
    master_ref_seqno: id.workchain === -1 ? mcSeqno : mcSeqno - 1,
    tx_count: txCount,
    masterchain_block_ref: { workchain: -1, shard: MC_SHARD, seqno: mcSeqno },
    prev_blocks: [prevId],
    prev_refs: [{ ...prevId, root_hash: prev?.root_hash ?? rng.hash(), file_hash: prev?.file_hash ?? rng.hash(), end_lt: prev?.end_lt ?? (startLt - 1n).toString() }],
  };
}
