/**
 * The read layer's data and calls, shared by the suites that compare its answers across engines
 * (store-chdb: 18.16 and current ClickHouse) and topologies (store-cluster: one server and a cluster):
 * mainnet fixture blocks, localnet account states and contracts, a local chain's tokens, traces and
 * actions, receipts and watermarks written through writeBatch (`load`), and every exported read
 * function with each filter, order, direction and page variant (`READS`, `readCases`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { accountStateRecord, decodeBlock } from '@tonstream/block';
import { type AccountStateRecord, type BlockRecord, type MessageRow, type TransactionRow, transactionRow } from '@tonstream/records';
import {
  type ActionFilter,
  type ActionOrder,
  batchRows,
  type BlockFilter,
  type BlockOrder,
  dropOldReceipts,
  type EventFilter,
  type EventKind,
  indexStart,
  type JettonWalletFilter,
  masterchainBlockIndexed,
  masterchainInfo,
  type MessageFilter,
  readHistoryFloor,
  readHistoryRanges,
  readRangeCheck,
  type MessageOrder,
  type NftItemFilter,
  readAccountStates,
  readAccountStatesByHash,
  readActions,
  readAddressFacts,
  readAdjacentTransactionHashes,
  readBlocks,
  readCodeHashes,
  readCodeInterfaces,
  readDeadLetterCounts,
  readDnsDomains,
  readDnsEntries,
  readIndexRates,
  readJettonHolders,
  readJettonMasters,
  readJettonWallets,
  readMessages,
  readMultisigOrders,
  readMultisigWallets,
  readNftCollections,
  readNftItems,
  readNftSales,
  readNftSalesBySeller,
  readProgress,
  readSalesOfItems,
  readTokenAddresses,
  readTokenEvents,
  readTopBalances,
  readTraceActions,
  readTraces,
  readTransactionBocs,
  readTransactionMessages,
  readTransactions,
  readTransactionTraceIds,
  readVestingContracts,
  readTraceProgress,
  readTracesWatermark,
  readWatermark,
  readWatermarks,
  type Receipt,
  type ReadScope,
  recordBatch,
  saveTracesWatermark,
  saveWatermark,
  type TraceReceipt,
  tracesStart,
  type SortDirection,
  type Store,
  type TableName,
  type TraceFilter,
  type TraceOrder,
  type TransactionFilter,
  type TransactionOrder,
  writeBatch,
} from '@tonstream/store';
import type { ActionRecord, TraceRecord } from '@tonstream/traces';
import { supportedSet } from '../../services/api/src/v3/traces/action-types.js';
import { type LocalnetData, localnetData, mainnetTraceData } from './chdb-localnet-data.js';
import { contractCases } from './chdb-contract-cases.js';
import { contractStates } from './contract-states.js';

const BLOCKS = join(import.meta.dirname, '../fixtures/mainnet/blocks');
const LOCALNET = join(import.meta.dirname, '../fixtures/localnet');

/** Fixture blocks grouped under committing masterchain blocks (as api-v3.test.ts; c is above the watermark). */
/** A row as JSONEachRow gives it. */
export type Row = Record<string, unknown>;

export const MC = { a: 17734191, b: 24374597, c: 46991999 };
const COMMITS: Record<number, string[]> = {
  [MC.a]: ['mc_-1_8000000000000000_17734191.boc', 'wc0_c000000000000000_13516764_after_merge.boc', 'wc0_0d83800000000000_4168601_after_merge_empty.boc'],
  [MC.b]: ['mc_-1_8000000000000000_24374597.boc', 'wc0_8000000000000000_30816553.boc', 'wc0_8000000000000000_40484416.boc', 'wc0_8000000000000000_40484438.boc'],
  [MC.c]: ['mc_-1_8000000000000000_46991999_keyblock.boc', 'wc0_6000000000000000_52111590.boc', 'wc0_a000000000000000_54302203.boc', 'wc0_a000000000000000_54302208.boc', 'wc0_8000000000000000_71398501.boc'],
};
export const WATERMARK = MC.b;

// ---------------------------------------------------------------------------------------------
// The rows: mainnet fixture blocks, localnet account states, receipts and the watermark.

type Decoded = ReturnType<typeof decodeBlock>;
export type Loaded = {
  blocks: BlockRecord[];
  transactions: TransactionRow[];
  messages: MessageRow[];
  states: AccountStateRecord[];
  localnet: LocalnetData;
  recorded: { traces: TraceRecord[]; actions: ActionRecord[] };
};

type FixtureState = { status: string; file: string; account: string; last_trans_lt: string; last_trans_hash_hex: string };
const FIXTURES = (JSON.parse(readFileSync(join(LOCALNET, 'account-states.json'), 'utf8')) as { states: FixtureState[] }).states;
const fixtureOf = (status: string) => FIXTURES.find((f) => f.status === status)!;

function fixtureState(f: FixtureState, bocOf: FixtureState, ltDelta: bigint, mcSeqno: number): AccountStateRecord {
  return accountStateRecord(readFileSync(join(LOCALNET, bocOf.file)), {
    account: f.account,
    lastTransLt: String(BigInt(f.last_trans_lt) + ltDelta),
    lastTransHash: Buffer.from(f.last_trans_hash_hex, 'hex').toString('base64'),
    mcSeqno,
    genUtime: 1700000000 + mcSeqno,
  });
}

/** Receipts as the writer makes them for the blocks of one masterchain seqno (index-progress.ts). */
function receiptsOf(mcSeqno: number, blocks: Decoded[], mcBlocks: number, writtenMs: number): Receipt[] {
  return blocks.flatMap((d, i) => {
    const b = d.block;
    const base = { mc_seqno: mcSeqno, block: `${b.workchain}:${b.shard}:${b.seqno}`, part: 0, dead: 0, written_ms: writtenMs + i };
    const none = { expect_transactions: 0, expect_messages: 0, expect_account_states: 0, mc_blocks: 0, index_from: 0, gen_utime: 0 };
    const isMc = b.workchain === -1;
    return [
      {
        ...base, kind: 'block' as const, records: 1, expect_transactions: d.transactions.length, expect_messages: d.messages.length, expect_account_states: 0,
        mc_blocks: isMc ? mcBlocks : 0, index_from: isMc ? MC.a : 0, gen_utime: Number(b.gen_utime),
      },
      { ...base, ...none, kind: 'transactions' as const, records: d.transactions.length },
      { ...base, ...none, kind: 'messages' as const, records: d.messages.length },
    ];
  });
}

/** Receipts as the writer makes them for the tracer's batches of the local chain (trace-progress.ts): a batch per masterchain seqno. */
function traceReceiptsOf(data: LocalnetData, writtenMs: number): TraceReceipt[] {
  const none = { dead: 0, first_mc_seqno: 0, expect_traces: 0, expect_actions: 0, written_ms: writtenMs };
  return data.mcSeqnos.flatMap((mc, i) => {
    const traces = data.traces.filter((t) => t.mc_seqno_end === mc);
    const actions = data.actions.filter((a) => a.trace_mc_seqno_end === mc);
    const withActions = [...new Set(actions.map((a) => a.trace_id))];
    return [
      { ...none, mc_seqno: mc, kind: 'batch' as const, trace_id: '', records: 1, first_mc_seqno: i === 0 ? 0 : data.mcSeqnos[i - 1] + 1, expect_traces: traces.length, expect_actions: actions.length },
      ...traces.map((t) => ({ ...none, mc_seqno: mc, kind: 'traces' as const, trace_id: t.trace_id, records: 1 })),
      ...withActions.map((id) => ({ ...none, mc_seqno: mc, kind: 'actions' as const, trace_id: id, records: actions.filter((a) => a.trace_id === id).length })),
    ];
  });
}

/** The local chain's rounds: its masterchain seqnos (2..) are far below the mainnet fixtures' and the watermark. */
const LOCALNET_ROUNDS = 12;

/** Writes the data into every store in `stores` (the same batches, in the same order). */
export async function load(...stores: Store[]): Promise<Loaded> {
  const write = (batch: Parameters<typeof writeBatch>[1]) => Promise.all(stores.map((s) => writeBatch(s, batch)));
  const loaded: Loaded = { blocks: [], transactions: [], messages: [], states: [], localnet: await localnetData('tonstream-store-chdb', LOCALNET_ROUNDS), recorded: mainnetTraceData() };
  const batchOf = (decoded: Decoded[]) => recordBatch({ blocks: decoded.map((d) => d.block), transactions: decoded.flatMap((d) => d.transactions), messages: decoded.flatMap((d) => d.messages) });
  let replayed: Decoded[] = [];
  for (const [mc, files] of Object.entries(COMMITS)) {
    const decoded = files.map((f) => decodeBlock(readFileSync(join(BLOCKS, f)), { mcSeqno: Number(mc) }));
    // The fixtures are not one chain: no shard top a masterchain block names is stored. Naming the shard
    // blocks it commits as tops too (as they would be on a chain) gives /masterchainBlockShardState rows.
    const mcBlock = decoded[0].block;
    mcBlock.shard_tops = [...(mcBlock.shard_tops ?? []), ...decoded.slice(1).map(({ block: b }) => ({ workchain: b.workchain, shard: b.shard, seqno: b.seqno }))];
    const batch = batchOf(decoded);
    batch.receipts = receiptsOf(Number(mc), decoded, files.length, 1_700_000_000_000 + Number(mc));
    if (Number(mc) === MC.b) replayed = decoded.slice(0, 2);
    await write(batch);
    loaded.blocks.push(...batch.blocks.map((s) => s.record));
    loaded.transactions.push(...batch.transactions.map((s) => s.record));
    loaded.messages.push(...batch.messages.map((s) => s.record));
  }
  // Replayed blocks (the masterchain block b and a shard block): the same rows again, and their
  // receipts rewritten later (the newest counts).
  const replay = batchOf(replayed);
  replay.receipts = receiptsOf(MC.b, replayed, COMMITS[MC.b].length, 1_800_000_000_000);
  await write(replay);

  // Every localnet state at mc a; the uninit account gets a newer state at b (at the watermark) and
  // the active one at c (above it: the API serves its older state). States are written twice.
  const states = [
    ...FIXTURES.map((f) => fixtureState(f, f, 0n, MC.a)),
    fixtureState(fixtureOf('uninit'), fixtureOf('active'), 1000n, MC.b),
    fixtureState(fixtureOf('active'), fixtureOf('frozen'), 1000n, MC.c),
  ];
  await write(recordBatch({ accountStates: states }));
  await write(recordBatch({ accountStates: states.slice(0, 2) }));
  loaded.states = states;
  // DNS, multisig, vesting and sale contracts at mc a; the DNS item's next version at c (above the watermark).
  await write(recordBatch({ accountStates: contractStates(MC.a, MC.c) }));

  // The local chain, a masterchain block per batch as the writer gets them; traces and actions as the
  // tracer publishes them, some published twice (a replay stores each fact once).
  for (const batch of loaded.localnet.batches) await write(batch);
  for (const { traces, actions } of [loaded.localnet, loaded.recorded, loaded.localnet]) await write(recordBatch({ traces, actions }));
  await write(recordBatch({ traces: loaded.recorded.traces.slice(0, 5), actions: loaded.recorded.actions.slice(0, 20) }));
  // The tracer's batches of the local chain, the first marked twice (a replay; the newer receipt counts).
  await write({ ...recordBatch({}), traceReceipts: traceReceiptsOf(loaded.localnet, 1_700_000_000_000) });
  await write({ ...recordBatch({}), traceReceipts: traceReceiptsOf(loaded.localnet, 1_800_000_000_000).slice(0, 1) });
  await Promise.all(stores.map((s) => saveWatermark(s, { mc_seqno: MC.a, gen_utime: 1700000001 })));
  await Promise.all(stores.map((s) => saveWatermark(s, { mc_seqno: WATERMARK, gen_utime: 1700000002 })));
  await Promise.all(stores.map((s) => saveTracesWatermark(s, { mc_seqno: loaded.localnet.mcSeqnos[1] })));
  await Promise.all(stores.map((s) => saveTracesWatermark(s, { mc_seqno: WATERMARK })));
  return loaded;
}

// ---------------------------------------------------------------------------------------------
// The reads: every exported read function, each filter, order, direction and page variant.

export const READS = {
  readHistoryFloor,
  readHistoryRanges,
  readRangeCheck,
  readCodeHashes,
  readAccountStates,
  readAccountStatesByHash,
  readTopBalances,
  readBlocks,
  masterchainInfo,
  masterchainBlockIndexed,
  readMessages,
  readAdjacentTransactionHashes,
  readTransactions,
  readTransactionMessages,
  readTransactionBocs,
  readWatermark,
  indexStart,
  readProgress,
  readTracesWatermark,
  tracesStart,
  readTraceProgress,
  readWatermarks,
  readIndexRates,
  readDeadLetterCounts,
  readTraces,
  readTransactionTraceIds,
  readActions,
  readTraceActions,
  readJettonWallets,
  readJettonHolders,
  readJettonMasters,
  readNftCollections,
  readNftItems,
  readTokenEvents,
  readTokenAddresses,
  readCodeInterfaces,
  readAddressFacts,
  readDnsEntries,
  readMultisigWallets,
  readMultisigOrders,
  readVestingContracts,
  readNftSales,
  readSalesOfItems,
  readNftSalesBySeller,
  readDnsDomains,
  // Last: it drops a receipt partition (chdb replays the DROP too; the final table dumps compare).
  dropOldReceipts,
};
export type ReadName = keyof typeof READS;
type ArgsOf<F> = F extends (store: Store, ...rest: infer A) => unknown ? A : never;
/** Every read with its calls; `empty` marks a call whose answer is rightly empty (else it must not be). */
export type Cases = { [K in ReadName]: { args: ArgsOf<(typeof READS)[K]>; empty?: true }[] };

const SORTS: SortDirection[] = ['asc', 'desc'];
// Records (not arrays) so that a new order fails to compile until it is listed here.
const BLOCK_ORDERS: Record<BlockOrder, true> = { gen_utime: true, id: true };
const TRANSACTION_ORDERS: Record<TransactionOrder, true> = { lt: true, now: true };
const MESSAGE_ORDERS: Record<MessageOrder, true> = { lt: true, utime: true };
const TRACE_ORDERS: Record<TraceOrder, true> = { lt: true, utime: true };
const ACTION_ORDERS: Record<ActionOrder, true> = { lt: true, utime: true };
const EVENT_KINDS: Record<EventKind, true> = { jetton_transfers: true, jetton_burns: true, nft_transfers: true };
const orders = <O extends string>(r: Record<O, true>) => Object.keys(r) as O[];

/** A filter per field (each has its field set; a new field fails to compile until it has one). */
type PerField<F> = { [K in keyof Required<F>]: F };

function pick<T>(items: T[], what: string, test: (t: T) => boolean): T {
  const found = items.find(test);
  if (found === undefined) throw new Error(`the fixture data has no ${what}`);
  return found;
}

export function readCases(data: Loaded): Cases {
  const scope: ReadScope = { watermark: WATERMARK, traces: WATERMARK, query: { timeoutMs: 10_000 } };
  const plain: ReadScope = { watermark: WATERMARK, traces: WATERMARK };
  const indexed = (mc: number | null) => mc !== null && mc <= WATERMARK;

  const block = pick(data.blocks, 'shard block at or below the watermark', (b) => b.workchain === 0 && indexed(b.mc_block_seqno) && b.tx_count > 10);
  const mcBlock = pick(data.blocks, 'masterchain block with shard tops', (b) => b.workchain === -1 && b.seqno === WATERMARK);
  const txs = data.transactions.filter((t) => indexed(t.mc_block_seqno));
  const msgs = data.messages.filter((m) => indexed(m.mc_block_seqno));
  const sides = (hash: string) => new Set(msgs.filter((m) => m.hash === hash).map((m) => m.direction));
  // A transaction whose in message came from a stored transaction and whose out messages reached some.
  const tx = pick(txs, 'transaction with stored parent and child', (t) => t.in_msg !== null && sides(t.in_msg.hash).has('out') && t.out_msgs.some((m) => sides(m.hash).has('in')));
  const internal = pick(msgs, 'internal message with both sides stored', (m) => m.opcode !== null && m.source !== null && m.destination !== null && sides(m.hash).size === 2);
  const external = pick(msgs, 'external-in message', (m) => m.source === null && m.hash_norm !== undefined);
  const externalOut = msgs.find((m) => m.direction === 'out' && m.destination === null);
  const opcode = Number.parseInt(internal.opcode!, 16);

  const blockFilters: PerField<BlockFilter> = {
    workchain: { workchain: 0 },
    shard: { workchain: block.workchain, shard: BigInt(`0x${block.shard}`) },
    seqno: { workchain: block.workchain, seqno: block.seqno },
    rootHash: { rootHash: block.root_hash },
    fileHash: { fileHash: block.file_hash },
    mcSeqno: { mcSeqno: WATERMARK },
    shardStateOf: { shardStateOf: mcBlock.seqno },
    startUtime: { startUtime: Number(block.gen_utime) },
    endUtime: { endUtime: Number(block.gen_utime) },
    startLt: { startLt: BigInt(block.start_lt) },
    endLt: { endLt: BigInt(block.start_lt) },
  };
  const messageFilters: PerField<MessageFilter> = {
    hashes: { hashes: [internal.hash, tx.in_msg!.hash] },
    bodyHash: { bodyHash: internal.message_content.hash },
    source: { source: internal.source },
    destination: { destination: internal.destination },
    opcode: { opcode },
    direction: { direction: 'out', source: internal.source },
    startUtime: { startUtime: Number(internal.created_at) },
    endUtime: { endUtime: Number(internal.created_at) },
    startLt: { startLt: BigInt(internal.created_lt!) },
    endLt: { endLt: BigInt(internal.created_lt!) },
    excludeExternals: { excludeExternals: true },
    onlyExternals: { onlyExternals: true },
  };
  const transactionFilters: PerField<TransactionFilter> = {
    workchain: { workchain: 0 },
    shard: { workchain: 0, shard: BigInt(`0x${block.shard}`) },
    seqno: { workchain: block.workchain, shard: BigInt(`0x${block.shard}`), seqno: block.seqno },
    mcSeqno: { mcSeqno: WATERMARK },
    accounts: { accounts: [tx.account, txs[0].account] },
    hashes: { hashes: [tx.hash, txs[1].hash] },
    lt: { accounts: [tx.account], lt: BigInt(tx.lt) },
    startUtime: { startUtime: tx.now },
    endUtime: { endUtime: tx.now },
    startLt: { startLt: BigInt(tx.lt) },
    endLt: { endLt: BigInt(tx.lt) },
    message: { message: { hashes: [tx.in_msg!.hash], direction: 'in' } },
  };

  const page = { limit: 7, offset: 0 };
  const blockPages = orders(BLOCK_ORDERS).flatMap((order) => SORTS.map((sort) => ({ limit: 3, offset: 2, sort, order })));
  const txPages = orders(TRANSACTION_ORDERS).flatMap((order) => SORTS.map((sort) => ({ limit: 5, offset: 4, sort, order })));
  const msgPages = orders(MESSAGE_ORDERS).flatMap((order) => SORTS.map((sort) => ({ limit: 5, offset: 3, sort, order })));

  const stateAccounts = FIXTURES.map((f) => f.account);
  const stored = data.states.filter((s) => indexed(s.mc_block_seqno));
  const someTxs = txs.filter((t) => t.account === tx.account || t.hash === tx.hash).concat(txs.slice(0, 20));

  return {
    readCodeHashes: [{ args: [plain, [...stateAccounts, tx.account]] }, { args: [scope, [tx.account]], empty: true }],
    readAccountStates: [{ args: [scope, [...stateAccounts, tx.account]] }],
    readAccountStatesByHash: [
      { args: [scope, stored.map((s) => ({ account: s.account, hash: s.account_state_hash, lt: s.last_trans_lt, tx: s.last_trans_hash }))] },
      // The newer state of the active account is above the watermark.
      { args: [scope, [{ account: fixtureOf('active').account, hash: data.states.at(-1)!.account_state_hash, lt: data.states.at(-1)!.last_trans_lt, tx: data.states.at(-1)!.last_trans_hash }]], empty: true },
    ],
    readTopBalances: [{ args: [scope, { limit: 10, offset: 0 }] }, { args: [plain, { limit: 2, offset: 1 }] }, { args: [{ ...scope, floor: data.localnet.mcSeqnos[2] }, { limit: 10, offset: 0 }] }],
    readBlocks: [
      ...Object.values(blockFilters).map((filter) => ({ args: [scope, filter, { ...page, sort: 'desc' as const, order: 'gen_utime' as const }] as ArgsOf<typeof readBlocks> })),
      ...blockPages.map((p) => ({ args: [scope, {}, p] as ArgsOf<typeof readBlocks> })),
      { args: [scope, { mcSeqno: WATERMARK }, { limit: 1000, offset: 0, sort: 'asc', order: 'id' }] },
      { args: [scope, { mcSeqno: MC.c }, { limit: 10, offset: 0, sort: 'asc', order: 'id' }], empty: true },
    ],
    // Without a history floor (its oldest stored block), and with one.
    masterchainInfo: [{ args: [{ mc_seqno: WATERMARK, gen_utime: 1700000002 }, null, { timeoutMs: 3000 }] }, { args: [{ mc_seqno: WATERMARK, gen_utime: 1700000002 }, data.localnet.mcSeqnos[2], { timeoutMs: 3000 }] }],
    masterchainBlockIndexed: [{ args: [scope, MC.a] }, { args: [scope, MC.b] }, { args: [scope, MC.a + 1] as ArgsOf<typeof masterchainBlockIndexed>, empty: true }],
    readMessages: [
      ...Object.values(messageFilters).map((filter) => ({ args: [scope, filter, { ...page, sort: 'desc' as const, order: 'lt' as const }] as ArgsOf<typeof readMessages> })),
      ...msgPages.map((p) => ({ args: [scope, {}, p] as ArgsOf<typeof readMessages> })),
      { args: [scope, { hashes: [external.hash_norm!] }, { ...page, sort: 'asc', order: 'lt' }] },
      { args: [scope, { source: null, startUtime: 0 }, { ...page, sort: 'asc', order: 'utime' }], empty: true },
      { args: [scope, { source: null }, { ...page, sort: 'asc', order: 'utime' }] },
      { args: [scope, { destination: null }, { ...page, sort: 'desc', order: 'lt' }], ...(externalOut ? {} : { empty: true as const }) },
      { args: [scope, { excludeExternals: true, startUtime: Number(internal.created_at) }, { ...page, sort: 'asc', order: 'utime' }] },
      { args: [scope, { onlyExternals: true }, { ...page, sort: 'desc', order: 'utime' }] },
    ],
    readAdjacentTransactionHashes: [{ args: [scope, tx] }, { args: [scope, tx, 'in'] }, { args: [scope, tx, 'out'] }],
    readTransactions: [
      ...Object.values(transactionFilters).map((filter) => ({ args: [scope, filter, { ...page, sort: 'desc' as const, order: 'lt' as const }] as ArgsOf<typeof readTransactions> })),
      ...txPages.map((p) => ({ args: [scope, {}, p] as ArgsOf<typeof readTransactions> })),
      { args: [scope, { message: { hashes: [internal.hash], direction: 'out' } }, { ...page, sort: 'asc', order: 'lt' }] },
      { args: [scope, { message: { bodyHash: internal.message_content.hash, opcode, direction: 'in' } }, { ...page, sort: 'asc', order: 'lt' }] },
      { args: [scope, { startUtime: tx.now, endUtime: tx.now + 60 }, { ...page, sort: 'asc', order: 'now' }] },
      // Below a history floor nothing is served.
      { args: [{ ...scope, floor: data.localnet.mcSeqnos[2] }, {}, { ...page, sort: 'asc', order: 'lt' }] },
    ],
    readHistoryFloor: [{ args: [], empty: true }],
    readHistoryRanges: [{ args: [], empty: true }],
    // The local chain's seqnos: a window of receipts per 2,048 seqnos.
    readRangeCheck: [{ args: [data.localnet.mcSeqnos[0], data.localnet.mcSeqnos.at(-1)!] }],
    // Rows as stored before migration 18 too: messages by hash, BoCs in transaction_bocs.
    readTransactionMessages: [{ args: [scope, someTxs] }, { args: [scope, someTxs.map(transactionRow)] }],
    readTransactionBocs: [{ args: [scope, someTxs] }, { args: [scope, someTxs.map(({ boc: _boc, ...t }) => t)], empty: true }],
    readWatermark: [{ args: [] }],
    indexStart: [{ args: [] }],
    readProgress: [{ args: [MC.a - 1, MC.c - MC.a + 1] }, { args: [MC.a, 10], empty: true }],
    readTracesWatermark: [{ args: [] }],
    tracesStart: [{ args: [] }],
    readTraceProgress: [{ args: [-1, 1000] }, { args: [data.localnet.mcSeqnos[2], 3] }, { args: [WATERMARK, 10], empty: true }],
    readWatermarks: [{ args: [] }],
    readIndexRates: [{ args: [{ mc_seqno: WATERMARK, gen_utime: 1700000002 }, 4_000_000_000, 60] }],
    // No record was refused in this data.
    readDeadLetterCounts: [{ args: [{ mc_seqno: WATERMARK, gen_utime: 1700000002 }], empty: true }],
    dropOldReceipts: [{ args: [WATERMARK] }, { args: [WATERMARK, 'trace_receipts'] }],
    ...traceCases(data, scope, txs),
    ...tokenCases(data, scope),
    ...contractCases(scope, { watermark: MC.a - 1, query: scope.query }),
  };
}

const s = (v: unknown) => String(v);
/** The value most rows share (e.g. the account in most traces), for pages that need several rows. */
function commonest(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
}

type TraceReads = 'readTraces' | 'readTransactionTraceIds' | 'readActions' | 'readTraceActions';

/**
 * Traces and actions: the local chain's at `scope` (all below the watermark), at `early` (half of
 * them), and the recorded mainnet traces (ending at 25M-55M, above the watermark) at `later` (45M:
 * some of them), whose composites have parts for the supported-types rule.
 */
function traceCases(data: Loaded, scope: ReadScope, mainnetTxs: TransactionRow[]): Pick<Cases, TraceReads> {
  const { traces, actions, mcSeqnos } = data.localnet;
  const recorded = data.recorded;
  const early: ReadScope = { watermark: mcSeqnos[Math.floor(mcSeqnos.length / 2)], traces: scope.traces, query: scope.query };
  const later: ReadScope = { watermark: 45_000_000, traces: 45_000_000, query: scope.query };
  const trace = pick(traces, 'local trace of three transactions or more with a jetton transfer', (t) => t.nodes.length >= 3 && actions.some((a) => a.trace_id === t.trace_id && a.type === 'jetton_transfer'));
  const node = trace.nodes[1];
  const action = pick(actions, 'jetton transfer action of that trace', (a) => a.trace_id === trace.trace_id && a.type === 'jetton_transfer');
  const messages = data.localnet.batches.flatMap((b) => b.messages.map((m) => m.record));
  const external = pick(messages, 'local external with a normalized hash that rooted a trace', (m) => m.source === null && !!m.hash_norm && traces.some((t) => t.external_hash === m.hash));
  // (the masterchain's tick-tock accounts are in most traces, and in no action)
  const inActions = new Set(actions.flatMap((a) => a.accounts));
  const busy = commonest(traces.flatMap((t) => [...new Set(t.nodes.map((n) => n.account))].filter((a) => inActions.has(a))));
  const busyMc = pick(actions, 'action of the busiest account', (a) => a.accounts.includes(busy)).trace_mc_seqno_end;
  const composite = pick(recorded.actions, 'recorded composite with parts, ending below 45M', (a) => a.trace_mc_seqno_end <= later.watermark! && recorded.actions.some((p) => p.parent_action_id === a.action_id));
  const above = pick(recorded.traces, 'recorded trace ending above 45M', (t) => t.mc_seqno_end > later.watermark!);
  const v1 = supportedSet([]);
  const latest = supportedSet(undefined);
  const page = { limit: 7, offset: 0, sort: 'desc' as const, order: 'lt' as const };

  const traceFilters: PerField<TraceFilter> = {
    account: { account: node.account },
    traceIds: { traceIds: [trace.trace_id, traces[0].trace_id] },
    txHashes: { txHashes: [node.tx_hash] },
    msgHashes: { msgHashes: [node.in_msg_hash!, external.hash_norm!] },
    mcSeqno: { mcSeqno: trace.mc_seqno_end },
    startUtime: { startUtime: trace.end_utime },
    endUtime: { endUtime: trace.end_utime },
    startLt: { startLt: BigInt(trace.end_lt) },
    endLt: { endLt: BigInt(trace.end_lt) },
  };
  const actionFilters: PerField<ActionFilter> = {
    account: { account: busy },
    actionIds: { actionIds: [action.action_id, actions[0].action_id] },
    traceIds: { traceIds: [trace.trace_id] },
    txHashes: { txHashes: [action.transactions[0]] },
    msgHashes: { msgHashes: [node.in_msg_hash!, external.hash_norm!] },
    mcSeqno: { mcSeqno: trace.mc_seqno_end },
    startUtime: { startUtime: trace.end_utime },
    endUtime: { endUtime: trace.end_utime },
    startLt: { startLt: BigInt(trace.end_lt) },
    endLt: { endLt: BigInt(trace.end_lt) },
    types: { types: ['jetton_transfer', 'jetton_burn', 'nft_transfer'] },
    supported: { supported: latest },
    excludeTypes: { excludeTypes: ['contract_deploy', 'call_contract'] },
  };
  const tracePages = orders(TRACE_ORDERS).flatMap((order) => SORTS.map((sort) => ({ limit: 4, offset: 1, sort, order })));
  const actionPages = orders(ACTION_ORDERS).flatMap((order) => SORTS.map((sort) => ({ limit: 4, offset: 1, sort, order })));
  const T = (sc: ReadScope, f: TraceFilter, p: ArgsOf<typeof readTraces>[2]) => ({ args: [sc, f, p] as ArgsOf<typeof readTraces> });
  const A = (sc: ReadScope, f: ActionFilter, p: ArgsOf<typeof readActions>[2]) => ({ args: [sc, f, p] as ArgsOf<typeof readActions> });
  const allTraces = traces.map((t) => t.trace_id);

  return {
    readTraces: [
      ...Object.values(traceFilters).map((f) => T(scope, f, page)),
      // Each access path: the end-lt, account and masterchain-block lookups, and the main table by key.
      ...tracePages.flatMap((p) => [T(scope, {}, p), T(scope, { account: busy }, p), T(scope, { mcSeqno: busyMc }, p), T(scope, { traceIds: allTraces }, p)]),
      T(scope, { traceIds: allTraces, account: busy, startLt: BigInt(trace.start_lt), endUtime: trace.end_utime + 60 }, { ...page, sort: 'asc', order: 'utime' }),
      T(scope, { account: busy, startUtime: trace.start_utime, endUtime: trace.end_utime + 60 }, { ...page, order: 'utime' }),
      T(early, {}, page),
      T({ ...scope, floor: mcSeqnos[2] }, {}, page),
      // The traces watermark below the index's bounds them the same way.
      T({ ...scope, traces: early.watermark }, {}, page),
      T(later, {}, { ...page, limit: 30 }),
      T(later, { traceIds: recorded.traces.map((t) => t.trace_id) }, { limit: 100, offset: 0, sort: 'asc', order: 'utime' }),
      T(later, { account: composite.accounts[0] }, page),
      { args: [scope, { traceIds: [above.trace_id, composite.trace_id] }, page], empty: true },
      { args: [early, { traceIds: [traces.at(-1)!.trace_id] }, page], empty: true },
    ],
    readTransactionTraceIds: [
      { args: [scope, [...trace.nodes.map((n) => n.tx_hash), mainnetTxs[0].hash]] },
      // The mainnet fixture blocks' transactions were not traced.
      { args: [scope, [mainnetTxs[0].hash]], empty: true },
    ],
    readActions: [
      ...Object.values(actionFilters).map((f) => A(scope, f, page)),
      ...actionPages.flatMap((p) => [A(scope, {}, p), A(scope, { account: busy }, p), A(scope, { traceIds: allTraces }, p)]),
      A(scope, { account: busy, mcSeqno: busyMc, excludeTypes: ['call_contract'] }, page),
      A(scope, { traceIds: [trace.trace_id], account: action.accounts[0], types: latest, supported: latest }, { ...page, sort: 'asc' }),
      A(early, {}, { ...page, order: 'utime' }),
      // A client that knows the composites sees them; one that knows only v1 sees their parts.
      A(later, { types: latest, supported: latest }, { ...page, limit: 30, order: 'utime' }),
      A(later, { types: v1, supported: v1 }, { ...page, limit: 30 }),
      A(later, { traceIds: [composite.trace_id], types: v1, supported: v1 }, { ...page, sort: 'asc' }),
      A(later, { account: composite.accounts[0], types: latest, supported: latest }, page),
      A(later, { actionIds: [composite.action_id], types: latest, supported: latest }, page),
      { args: [scope, { actionIds: [composite.action_id] }, page], empty: true },
      { args: [scope, { types: [] }, page], empty: true },
    ],
    readTraceActions: [
      { args: [scope, allTraces, {}] },
      // (the recorded composite ends above the watermark: read at `later`, and rightly nothing at `scope`)
      { args: [later, [composite.trace_id], { types: latest, supported: latest }] },
      { args: [later, [composite.trace_id, trace.trace_id], { types: v1, supported: v1 }] },
      { args: [scope, [composite.trace_id], {}], empty: true },
    ],
  };
}

const TOKEN_STATE_TABLES = ['jetton_wallets', 'jetton_masters', 'nft_collections', 'nft_items'] as const;
type TokenReads = 'readJettonWallets' | 'readJettonHolders' | 'readJettonMasters' | 'readNftCollections' | 'readNftItems' | 'readTokenEvents' | 'readTokenAddresses' | 'readCodeInterfaces' | 'readAddressFacts';

/**
 * Token reads over the local chain's token rows, at `scope` (all of them), at `early` (events: the
 * earlier half) and at `before` (below every token contract's first state: rightly empty). A state
 * read at a watermark between a contract's versions is not compared: the state tables keep one row
 * per contract, so whether the older version still answers depends on when the engine merged.
 */
function tokenCases(data: Loaded, scope: ReadScope): Pick<Cases, TokenReads> {
  const tables = data.localnet.batches.map(batchRows);
  const rows = (table: TableName) => tables.flatMap((t) => t[table]);
  const versions = TOKEN_STATE_TABLES.flatMap((t) => rows(t)).map((r) => Number(r.mc_block_seqno)).sort((x, y) => x - y);
  const before: ReadScope = { watermark: versions[0] - 1, query: scope.query };
  const eventSeqnos = orders(EVENT_KINDS).flatMap((t) => rows(t)).map((r) => Number(r.mc_block_seqno)).sort((x, y) => x - y);
  const early: ReadScope = { watermark: eventSeqnos[Math.floor(eventSeqnos.length / 2)], query: scope.query };
  const stranger = data.states[0].account;
  const page = { limit: 10, offset: 0 };

  const wallets = rows('jetton_wallets');
  const wallet = pick(wallets, 'jetton wallet with a balance', (w) => s(w.balance) !== '0');
  const jetton = s(wallet.jetton);
  const owners = [...new Set(wallets.map((w) => s(w.owner)))].sort();
  const master = pick(rows('jetton_masters'), 'jetton master', (m) => s(m.address) === jetton);
  const collection = pick(rows('nft_collections'), 'NFT collection', () => true);
  const items = rows('nft_items').filter((i) => s(i.collection_address) === s(collection.address));
  const itemOwner = commonest(items.map((i) => s(i.owner_address)));
  const item = pick(items, 'NFT item of the busiest owner', (i) => s(i.owner_address) === itemOwner);

  const walletFilters: PerField<JettonWalletFilter> = {
    address: { address: [s(wallet.address), s(wallets[0].address)] },
    owner: { owner: owners.slice(0, 3) },
    jetton: { jetton: [jetton] },
    excludeZero: { excludeZero: true },
  };
  type MasterFilter = ArgsOf<typeof readJettonMasters>[1];
  type CollectionFilter = ArgsOf<typeof readNftCollections>[1];
  const masterFilters: PerField<MasterFilter> = { address: { address: [jetton] }, admin: { admin: [s(master.admin_address)] } };
  const collectionFilters: PerField<CollectionFilter> = { address: { address: [s(collection.address)] }, owner: { owner: [s(collection.owner_address)] } };
  const itemFilters: PerField<NftItemFilter> = {
    address: { address: items.slice(0, 3).map((i) => s(i.address)) },
    owner: { owner: [itemOwner] },
    collection: { collection: [s(collection.address)] },
    index: { collection: [s(collection.address)], index: ['0', '1', s(item.item_index)] },
    byLastLt: { byLastLt: true },
    // Other owners' items counted as the busiest owner's listings (the OR and the seller ordering).
    listings: { owner: [itemOwner], listings: items.filter((i) => s(i.owner_address) !== itemOwner).slice(0, 2).map((i) => ({ sale: s(i.owner_address), nft: s(i.address), seller: itemOwner })) },
  };
  const W = (sc: ReadScope, f: JettonWalletFilter, p: ArgsOf<typeof readJettonWallets>[2]) => ({ args: [sc, f, p] as ArgsOf<typeof readJettonWallets> });
  const N = (sc: ReadScope, f: NftItemFilter, p: ArgsOf<typeof readNftItems>[2]) => ({ args: [sc, f, p] as ArgsOf<typeof readNftItems> });

  /** Per kind: its rows, the owner of one event (its sender, of a transfer) and a second party, and its token account. */
  const events: Record<EventKind, { rows: Row[]; party: (r: Row) => string; other: (r: Row) => string; token: (r: Row) => string; tokenAccount: (r: Row) => string }> = {
    jetton_transfers: { rows: rows('jetton_transfers'), party: (r) => s(r.source), other: (r) => s(r.destination), token: (r) => s(r.jetton_master), tokenAccount: (r) => s(r.source_wallet) },
    jetton_burns: { rows: rows('jetton_burns'), party: (r) => s(r.owner), other: (r) => s(r.jetton_wallet), token: (r) => s(r.jetton_master), tokenAccount: (r) => s(r.jetton_wallet) },
    nft_transfers: { rows: rows('nft_transfers'), party: (r) => s(r.old_owner), other: (r) => s(r.nft_address), token: (r) => s(r.nft_collection), tokenAccount: (r) => s(r.nft_address) },
  };
  const eventCases = orders(EVENT_KINDS).flatMap((kind) => {
    const k = events[kind];
    const e = pick(k.rows, `${kind} row`, () => true);
    const E = (sc: ReadScope, f: EventFilter, p: ArgsOf<typeof readTokenEvents>[3]) => ({ args: [sc, kind, f, p] as ArgsOf<typeof readTokenEvents> });
    const filters: PerField<EventFilter> = {
      owners: { owners: [k.party(e)] },
      direction: { owners: [k.party(e), k.other(e)], direction: 'out' },
      tokenAccounts: { owners: [k.party(e)], tokenAccounts: [k.tokenAccount(e)] },
      token: { token: k.token(e) },
      startUtime: { startUtime: Number(e.transaction_now) },
      endUtime: { endUtime: Number(e.transaction_now) },
      startLt: { startLt: s(e.transaction_lt) },
      endLt: { endLt: s(e.transaction_lt) },
      excludeAborted: { excludeAborted: true },
    };
    const nows = k.rows.map((r) => Number(r.transaction_now));
    return [
      ...Object.values(filters).map((f) => E(scope, f, { limit: 10, offset: 0, sort: 'desc' })),
      ...SORTS.flatMap((sort) => [
        E(scope, {}, { limit: 3, offset: 1, sort }),
        E(scope, { owners: [k.party(e)], token: k.token(e) }, { limit: 3, offset: 0, sort }),
        E(scope, { tokenAccounts: [k.tokenAccount(e)], direction: 'in' }, { limit: 3, offset: 0, sort }),
        E(scope, { token: k.token(e), startLt: '1', excludeAborted: true }, { limit: 3, offset: 0, sort }),
        E(scope, { startUtime: Math.min(...nows), endUtime: Math.max(...nows) }, { limit: 5, offset: 0, sort }),
      ]),
      E(early, {}, { limit: 10, offset: 0, sort: 'asc' }),
      { args: [scope, kind, { token: stranger }, { limit: 10, offset: 0, sort: 'asc' }] as ArgsOf<typeof readTokenEvents>, empty: true as const },
    ];
  });

  return {
    readJettonWallets: [
      ...Object.values(walletFilters).map((f) => W(scope, f, page)),
      ...[undefined, ...SORTS].flatMap((sort) => [{}, { owner: owners }, { jetton: [jetton] }].map((f) => W(scope, f, { limit: 4, offset: 1, ...(sort ? { sort } : {}) }))),
      W(scope, { owner: owners, jetton: [jetton], excludeZero: true }, { ...page, sort: 'desc' }),
      { args: [before, { jetton: [jetton] }, page], empty: true },
      { args: [scope, { address: [stranger] }, page], empty: true },
    ],
    readJettonHolders: [
      ...SORTS.map((sort) => ({ args: [scope, jetton, { limit: 4, offset: 0, sort }] as ArgsOf<typeof readJettonHolders> })),
      { args: [scope, jetton, { limit: 4, offset: 1, sort: 'asc' }, true] },
      { args: [before, jetton, { ...page, sort: 'desc' }], empty: true },
      { args: [scope, stranger, { ...page, sort: 'desc' }], empty: true },
    ],
    readJettonMasters: [
      ...Object.values(masterFilters).map((f) => ({ args: [scope, f, page] as ArgsOf<typeof readJettonMasters> })),
      { args: [scope, {}, page] },
      { args: [before, { address: [jetton] }, page], empty: true },
      { args: [scope, { admin: [stranger] }, page], empty: true },
    ],
    readNftCollections: [
      ...Object.values(collectionFilters).map((f) => ({ args: [scope, f, page] as ArgsOf<typeof readNftCollections> })),
      { args: [scope, {}, page] },
      { args: [before, { address: [s(collection.address)] }, page], empty: true },
      { args: [scope, { owner: [stranger] }, page], empty: true },
    ],
    readNftItems: [
      ...Object.values(itemFilters).map((f) => N(scope, f, page)),
      N(scope, {}, { limit: 3, offset: 1 }),
      N(scope, { collection: [s(collection.address)] }, { limit: 3, offset: 2 }),
      N(scope, { owner: [itemOwner], collection: [s(collection.address)] }, page),
      N(scope, { owner: [itemOwner], byLastLt: true }, page),
      N(scope, { collection: [s(collection.address)], byLastLt: true }, { limit: 3, offset: 1 }),
      { args: [before, { owner: [itemOwner] }, page], empty: true },
      { args: [scope, { collection: [s(collection.address)], index: ['1000000'] }, page], empty: true },
    ],
    readTokenEvents: eventCases,
    readTokenAddresses: [
      { args: [scope, [s(wallet.address), jetton, s(collection.address), s(item.address), stranger]] },
      { args: [before, [s(wallet.address), jetton]], empty: true },
      { args: [scope, [stranger]], empty: true },
    ],
    readCodeInterfaces: [
      { args: [scope, [s(wallet.code_hash), s(master.code_hash), s(item.code_hash), s(collection.code_hash), s(wallet.data_hash)]] },
      // A data hash names no code.
      { args: [scope, [s(wallet.data_hash)]], empty: true },
    ],
    // Code hashes, DNS names and token flags; the codes' interfaces are kept from readCodeInterfaces above.
    readAddressFacts: [
      { args: [scope, [s(wallet.address), jetton, s(collection.address), s(item.address), stranger, owners[0]]] },
      { args: [before, [s(wallet.address), jetton, stranger]] },
    ],
  };
}

export function nonEmpty(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v > 0;
  return v !== null && v !== undefined;
}

