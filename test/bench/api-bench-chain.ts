/**
 * A synthetic chain for bench:api made of real transactions: every transaction is a real mainnet
 * transaction cell (test/fixtures/mainnet/blocks) rewritten with @ton/core and built again, and its
 * records are what the store would derive from that cell (`transactionFromBoc`), so each BoC is the
 * real cell of its rewritten transaction: its hash is the transaction hash, its message cells' hashes
 * are the message hashes. Rewritten: the account, lt, time, the link to the account's previous
 * transaction (prev hash and lt), the account state hashes (old = the account's previous new, new
 * random), and the messages' addresses, lts and times; a received message is the very message its
 * sender sent (one cell, one hash on both sides). Descriptions, fees, bodies and init states stay as on
 * mainnet. Blocks are real decoded block records, account states real localnet states
 * (test/fixtures/localnet/account-states through accountStateRecord), with their ids rewritten.
 * Transactions whose cell @ton/core does not build again to the same hash are left out of the templates.
 * The whole chain is read under one global version, the newest of the fixture blocks': a message
 * crosses blocks, and its in and out records must read its fee field alike.
 *
 * Shape: `mcBlocks` masterchain blocks, each with MC_TXS masterchain transactions and committing one
 * block of each of the four basechain shards, which share `shardTxPerMc` transactions by the shard of
 * their account. Accounts are skewed: message counterparties follow a Zipf law of exponent
 * `zipfExponent` over them; a transaction that does not receive a waiting message draws its account
 * the same way, except that the first `accounts` transactions visit every account once (so each has
 * transactions and a state). An internal message an out message creates is received by a transaction
 * in a later masterchain block (so most messages have both an out and an in row, as on mainnet); the
 * receiver is its destination. After every shard block each account it touched gets a stored state, as
 * the pipeline stores one state per account per block.
 * Deterministic: the same options give the same chain.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Address, beginCell, type CommonMessageInfo, Dictionary, type DictionaryValue, loadMessage, loadTransaction, type Message, storeMessage, storeTransaction, type Transaction, Cell } from '@ton/core';
import { accountStateRecord, blockRecords, loadBlock, parseBoc, transactionFromBoc } from '@tonstream/block';
import { type AccountStateRecord, type BlockId, type BlockRecord, type MessageRow, transactionRow } from '@tonstream/records';
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

/** A transaction's out messages as its cell holds them (@ton/core exports no DictionaryValue for them). */
const MESSAGE_VALUE: DictionaryValue<Message> = {
  serialize: (m, builder) => builder.storeRef(beginCell().store(storeMessage(m))),
  parse: (slice) => loadMessage(slice.loadRef().beginParse()),
};

/** A mainnet transaction, parsed; `outMessages` in the order of their dictionary keys. */
type TxTemplate = { account: string; tx: Transaction; outMessages: Message[] };
type StateKind = 'active' | 'uninit' | 'frozen';

export type Templates = {
  shardTxs: TxTemplate[];
  mcTxs: TxTemplate[];
  shardBlocks: BlockRecord[];
  mcBlocks: BlockRecord[];
  states: Record<StateKind, AccountStateRecord>;
  /** The global version the chain's records are read under: the newest of the fixture blocks'. */
  globalVersion: number | undefined;
};

/** The fixture records the chain is made of. */
export function loadTemplates(): Templates {
  const t: Templates = { shardTxs: [], mcTxs: [], shardBlocks: [], mcBlocks: [], states: loadStateTemplates(), globalVersion: undefined };
  for (const file of readdirSync(MAINNET_BLOCKS).sort()) {
    const bytes = readFileSync(join(MAINNET_BLOCKS, file));
    const block = loadBlock(parseBoc(bytes));
    const d = blockRecords(block, bytes, { mcSeqno: 1 });
    const version = block.info.genSoftware?.version;
    if (version !== undefined && (t.globalVersion === undefined || version > t.globalVersion)) t.globalVersion = version;
    const isMc = d.block.workchain === -1;
    // The key block's record is the masterchain's odd one out; ordinary blocks are the common case.
    if (!d.block.key_block && d.block.tx_count > 0) (isMc ? t.mcBlocks : t.shardBlocks).push(d.block);
    for (const record of d.transactions) {
      const template = txTemplate(record.account, Cell.fromBase64(record.boc!));
      if (template) (isMc ? t.mcTxs : t.shardTxs).push(template);
    }
  }
  return t;
}

/** The transaction of `cell` as a template, or null when @ton/core does not build it again to the same cell. */
function txTemplate(account: string, cell: Cell): TxTemplate | null {
  const tx = loadTransaction(cell.beginParse());
  if (!beginCell().store(storeTransaction(tx)).endCell().hash().equals(cell.hash())) return null;
  const keys = tx.outMessages.keys().sort((a, b) => a - b);
  return { account, tx, outMessages: keys.map((k) => tx.outMessages.get(k)!) };
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

/** An account of the chain: `address` as records print it, `addr` as @ton/core stores it; its last transaction and state hash. */
type AccountInfo = { address: string; addr: Address; shard: number; kind: StateKind; balance: bigint; lastHash: Buffer; lastLt: bigint; stateHash: Buffer };
/** An internal message sent in an earlier masterchain block, waiting for its receiver. */
type PendingMessage = { message: Message; receiver: AccountInfo };

function accountInfo(address: string, shard: number, kind: StateKind, balance: bigint, stateHash: Buffer): AccountInfo {
  return { address, addr: Address.parseRaw(address), shard, kind, balance, lastHash: Buffer.alloc(32), lastLt: 0n, stateHash };
}

/** `info` with the fields of `change` that its type has (a message of the template, readdressed). */
function withInfo(m: Message, change: { src?: Address; dest?: Address; createdLt?: bigint; createdAt?: number }): Message {
  const info = { ...m.info } as CommonMessageInfo;
  if (change.src && info.type !== 'external-in') info.src = change.src;
  if (change.dest && info.type !== 'external-out') info.dest = change.dest;
  if (change.createdLt !== undefined && info.type !== 'external-in') info.createdLt = change.createdLt;
  if (change.createdAt !== undefined && info.type !== 'external-in') info.createdAt = change.createdAt;
  return { ...m, info };
}

/** Yields the chain as record batches of `mcBlocksPerBatch` masterchain blocks, in chain order. */
export function* generateChain(templates: Templates, o: ChainOptions): Generator<RecordBatch> {
  const rng = createRandom(o.seed);
  const randomHash = () => Buffer.from(rng.hash(), 'base64');
  const accounts: AccountInfo[] = [];
  for (let r = 0; r < o.accounts; r++) {
    const hex = rng.hex64();
    // The most active accounts are deployed contracts; the tail is mostly wallets, some never deployed or frozen.
    const roll = rng.float();
    const kind: StateKind = r < 1000 || roll < 0.85 ? 'active' : roll < 0.95 ? 'uninit' : 'frozen';
    const balance = BigInt(Math.floor(10 ** (6 + rng.float() * 9)));
    accounts.push(accountInfo(`0:${hex}`, parseInt(hex[0], 16) >> 2, kind, balance, randomHash()));
  }
  const mcAccounts = new Map<string, AccountInfo>();
  const sample = accountSampler(rng, o.accounts, o.zipfExponent);
  let pending: PendingMessage[] = [];
  let pendingHead = 0;
  let batch = emptyBatch();
  let prevMc: BlockRecord | null = null;
  const prevShard: (BlockRecord | null)[] = SHARDS.map(() => null);

  for (let k = 0; k < o.mcBlocks; k++) {
    const mcSeqno = o.firstMcSeqno + k;
    const utime = o.firstUtime + k * MC_BLOCK_INTERVAL_S;
    const ltBase = BigInt(mcSeqno) * 1_000_000n;
    const created: PendingMessage[] = [];

    /** The template's transaction as `account`'s at `lt`, built as a cell; its records, from that cell, go to the batch. */
    const makeTx = (tpl: TxTemplate, account: AccountInfo, lt: bigint, blockRef: BlockId, received: Message | null) => {
      const masterchain = account.shard === -1;
      let inMessage = received ?? tpl.tx.inMessage ?? null;
      if (!received && inMessage?.info.type === 'external-in') inMessage = withInfo(inMessage, { dest: account.addr });
      else if (!received && inMessage?.info.type === 'internal') {
        inMessage = withInfo(inMessage, { src: accounts[sample.zipf()].addr, dest: account.addr, createdLt: lt - 1n, createdAt: utime - MC_BLOCK_INTERVAL_S });
      }
      const outMessages = Dictionary.empty(Dictionary.Keys.Uint(15), MESSAGE_VALUE);
      tpl.outMessages.forEach((m, i) => {
        // A masterchain account's messages keep their system destinations; a basechain account's go to the chain's accounts.
        const receiver = m.info.type === 'internal' && !masterchain ? accounts[sample.zipf()] : null;
        const out = withInfo(m, { src: account.addr, dest: receiver?.addr, createdLt: lt + 1n + BigInt(i), createdAt: utime });
        outMessages.set(i, out);
        if (receiver) created.push({ message: out, receiver });
      });
      const stateAfter = randomHash();
      const tx: Transaction = {
        ...tpl.tx,
        address: BigInt(`0x${account.addr.hash.toString('hex')}`),
        lt,
        now: utime,
        prevTransactionHash: BigInt(`0x${account.lastHash.toString('hex')}`),
        prevTransactionLt: account.lastLt,
        inMessage,
        outMessages,
        stateUpdate: { oldHash: account.stateHash, newHash: stateAfter },
      };
      const cell = beginCell().store(storeTransaction(tx)).endCell();
      const record = transactionFromBoc(cell.toBoc().toString('base64'), { account: account.address, blockRef, mcSeqno, globalVersion: templates.globalVersion });
      const row = transactionRow(record);
      batch.transactions.push({ record: row, json: JSON.stringify(row) });
      const ids = { tx_hash: record.hash, tx_lt: record.lt, mc_block_seqno: mcSeqno };
      const messages: MessageRow[] = record.out_msgs.map((m) => ({ ...m, direction: 'out', ...ids }));
      if (record.in_msg) messages.unshift({ ...record.in_msg, direction: 'in', ...ids });
      for (const m of messages) batch.messages.push({ record: m, json: JSON.stringify(m) });
      account.lastHash = cell.hash();
      account.lastLt = lt;
      account.stateHash = stateAfter;
    };

    const storeStates = (touched: Set<AccountInfo>) => {
      for (const a of touched) {
        // A random walk of up to 1 TON per block, never below zero.
        const next = a.balance + BigInt(rng.int(2_000_000_000)) - 1_000_000_000n;
        if (next >= 0n) a.balance = next;
        const s: AccountStateRecord = {
          ...templates.states[a.kind],
          account: a.address,
          account_state_hash: a.stateHash.toString('base64'),
          balance: a.balance.toString(),
          last_trans_lt: a.lastLt.toString(),
          last_trans_hash: a.lastHash.toString('base64'),
          mc_block_seqno: mcSeqno,
          gen_utime: utime,
        };
        batch.accountStates.push({ record: s, json: JSON.stringify(s) });
      }
    };

    // Basechain: draw the transactions, then split them into their accounts' shard blocks.
    const drawn: { tpl: TxTemplate; account: AccountInfo; received: PendingMessage | null }[] = [];
    for (let i = 0; i < o.shardTxPerMc; i++) {
      const tpl = templates.shardTxs[rng.int(templates.shardTxs.length)];
      const internal = tpl.tx.inMessage?.info.type === 'internal';
      // Until every account has been drawn, no transaction takes its account from a waiting message.
      const received = internal && sample.covered() && pendingHead < pending.length ? pending[pendingHead++] : null;
      const account = received ? received.receiver : accounts[sample.covering()];
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
        makeTx(d.tpl, d.account, lt, blockRef, d.received?.message ?? null);
        lt += BigInt(d.tpl.outMessages.length);
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
      let account = mcAccounts.get(tpl.account);
      if (!account) mcAccounts.set(tpl.account, (account = accountInfo(tpl.account, -1, 'active', 10n ** 15n, randomHash())));
      lt += 1n;
      makeTx(tpl, account, lt, mcRef, null);
      lt += BigInt(tpl.outMessages.length);
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
