/**
 * Every migration and every read-layer query runs on a current ClickHouse (chdb, in-process) with the
 * same results as on 18.16 (docker-compose users run a current image).
 *
 * The store is wrapped to record each SQL text it sends and, through a small HTTP proxy in front of
 * 18.16, the settings each request carried. Migrations run on a fresh 18.16 database; mainnet fixture
 * blocks, localnet account states and receipts are written through writeBatch, and so are a local
 * chain's Jetton and NFT traffic (blocks, token events and states, traces and actions; see
 * chdb-localnet-data.ts) and the recorded mainnet traces with their actions. Merges are stopped until
 * every row each INSERT stored is exported, then each table is merged (OPTIMIZE FINAL); then every
 * exported read function runs with literals from that data. chdb (test/python/chdb_run.py) replays
 * the DDL as executed, loads the same rows exported from 18.16 (its views fill their tables from
 * them), merges each table, and runs each captured query with the same settings. Results must be
 * equal: in order where the query orders at its top level, as multisets where it does not.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { accountStateRecord, decodeBlock } from '@tonstream/block';
import { type AccountStateRecord, type BlockRecord, type MessageRow, type TransactionRow, transactionRow } from '@tonstream/records';
import {
  type ActionFilter,
  type ActionOrder,
  batchRows,
  type BlockFilter,
  type BlockOrder,
  createStore,
  dropOldReceipts,
  type EventFilter,
  type EventKind,
  indexStart,
  type JettonWalletFilter,
  masterchainBlockIndexed,
  masterchainInfo,
  type MessageFilter,
  type MessageOrder,
  migrate,
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
  str,
  strList,
  type Store,
  type TableName,
  type TraceFilter,
  type TraceOrder,
  type TransactionFilter,
  type TransactionOrder,
  writeBatch,
} from '@tonstream/store';
import type { ActionRecord, TraceRecord } from '@tonstream/traces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supportedSet } from '../../services/api/src/v3/traces/action-types.js';
import { type LocalnetData, localnetData, mainnetTraceData } from './chdb-localnet-data.js';
import { contractCases } from './chdb-contract-cases.js';
import { contractStates } from './contract-states.js';
import { type ChdbStep, runChdb } from './python.js';
import { dropDatabase } from '../support/clickhouse.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const database = `tonstream_chdb_${randomBytes(4).toString('hex')}`;
const STORE_SRC = join(import.meta.dirname, '../../packages/store/src');
const BLOCKS = join(import.meta.dirname, '../fixtures/mainnet/blocks');
const LOCALNET = join(import.meta.dirname, '../fixtures/localnet');

/** Fixture blocks grouped under committing masterchain blocks (as api-v3.test.ts; c is above the watermark). */
const MC = { a: 17734191, b: 24374597, c: 46991999 };
const COMMITS: Record<number, string[]> = {
  [MC.a]: ['mc_-1_8000000000000000_17734191.boc', 'wc0_c000000000000000_13516764_after_merge.boc', 'wc0_0d83800000000000_4168601_after_merge_empty.boc'],
  [MC.b]: ['mc_-1_8000000000000000_24374597.boc', 'wc0_8000000000000000_30816553.boc', 'wc0_8000000000000000_40484416.boc', 'wc0_8000000000000000_40484438.boc'],
  [MC.c]: ['mc_-1_8000000000000000_46991999_keyblock.boc', 'wc0_6000000000000000_52111590.boc', 'wc0_a000000000000000_54302203.boc', 'wc0_a000000000000000_54302208.boc', 'wc0_8000000000000000_71398501.boc'],
};
const WATERMARK = MC.b;

/**
 * URL parameters of the HTTP interface that are not settings (18.16 and current alike): the query
 * itself, its id, the database, and wait_end_of_query, which the HTTP handler reads (it is in neither
 * engine's system.settings).
 */
const HTTP_PARAMS = new Set(['query', 'query_id', 'database', 'wait_end_of_query']);

/** Exported functions of the read modules that issue no SQL of their own, and why. */
const NOT_READS: Record<string, string> = {
  accountStateKey: 'map key helper',
  messageKey: 'map key helper',
  sqlDirection: 'SQL fragment helper',
  sqlPage: 'SQL fragment helper',
  sqlWhere: 'SQL fragment helper',
  pointRead: 'query options helper (settings of point reads)',
  transactionsWithMessage: 'SQL fragment, runs inside readTransactions (message filter cases)',
  readMessageRecords: 'runs inside readMessages (message cases): their transactions by key',
  tracesOfMessages: 'SQL fragment, runs inside readTraces and readActions (msgHashes cases)',
  advanceWatermark: 'pure: moves the watermark over receipts already read',
  addressBookInterfaces: 'pure: the interfaces of an address book row, from facts already read',
  saveWatermark: 'a write (insert), not a query',
  advanceTracesWatermark: 'pure: moves the traces watermark over receipts already read',
  saveTracesWatermark: 'a write (insert), not a query',
  tracesBound: 'pure: the lower of the two watermarks in a read scope',
  withinBound: 'SQL fragment helper (ranked reads)',
  bucketCandidates: 'SQL fragment helper (ranked reads)',
  buildTokenMetadata: 'composes readTokenAddresses and tokenMetadataOf',
  tokenMetadataOf: 'composes the token reads here and the metadata cache read',
  tokenMetadata: 'pure: shapes one metadata entry',
  metadataOfEach: 'pure: picks each address\'s entries from a built map',
  rankedPage: 'runs inside readJettonHolders and readTopBalances',
  summaryFromColumns: 'pure: a state summary from the columns readAccountStatesByHash reads',
  askHotTier: 'asks the hot tier (Redis), no query',
};

type Row = Record<string, unknown>;
/** One SQL request of the store as 18.16 answered it. */
type Step = { kind: 'command' | 'query'; sql: string; read: string; rows: Row[]; settings: Record<string, string> };
type Sent = { sql: string; params: Record<string, string>; matched: boolean };

// ---------------------------------------------------------------------------------------------
// Capture: a proxy that records each request's settings, and a store that records each statement.

async function startProxy(target: string) {
  const sent: Sent[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', target);
      const params = Object.fromEntries(url.searchParams);
      sent.push({ sql: params.query ?? body.toString('utf8'), params, matched: false });
      const upstream = httpRequest(url, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', (err) => res.destroy(err));
      upstream.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The settings the request of `sql` carried (the client appends a FORMAT clause to queries). */
function settingsOf(sent: Sent[], sql: string): Record<string, string> {
  const found = sent.find((s) => !s.matched && (s.sql === sql || s.sql.startsWith(`${sql.trim()} \nFORMAT`) || s.sql.startsWith(`${sql.trim()}\nFORMAT`)));
  if (!found) throw new Error(`no request seen for ${sql.slice(0, 200)}`);
  found.matched = true;
  return Object.fromEntries(Object.entries(found.params).filter(([k]) => !HTTP_PARAMS.has(k)));
}

function recordingStore(store: Store, steps: Step[], sent: Sent[], current: () => string): Store {
  return {
    ...store,
    async command(sql) {
      await store.command(sql);
      steps.push({ kind: 'command', sql, read: current(), rows: [], settings: settingsOf(sent, sql) });
    },
    async query<T>(sql: string, options?: Parameters<Store['query']>[1]) {
      const rows = await store.query<T>(sql, options);
      steps.push({ kind: 'query', sql, read: current(), rows: rows as Row[], settings: settingsOf(sent, sql) });
      return rows;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The rows: mainnet fixture blocks, localnet account states, receipts and the watermark.

type Decoded = ReturnType<typeof decodeBlock>;
type Loaded = {
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

async function load(store: Store): Promise<Loaded> {
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
    await writeBatch(store, batch);
    loaded.blocks.push(...batch.blocks.map((s) => s.record));
    loaded.transactions.push(...batch.transactions.map((s) => s.record));
    loaded.messages.push(...batch.messages.map((s) => s.record));
  }
  // Replayed blocks (the masterchain block b and a shard block): the same rows again, and their
  // receipts rewritten later (the newest counts).
  const replay = batchOf(replayed);
  replay.receipts = receiptsOf(MC.b, replayed, COMMITS[MC.b].length, 1_800_000_000_000);
  await writeBatch(store, replay);

  // Every localnet state at mc a; the uninit account gets a newer state at b (at the watermark) and
  // the active one at c (above it: the API serves its older state). States are written twice.
  const states = [
    ...FIXTURES.map((f) => fixtureState(f, f, 0n, MC.a)),
    fixtureState(fixtureOf('uninit'), fixtureOf('active'), 1000n, MC.b),
    fixtureState(fixtureOf('active'), fixtureOf('frozen'), 1000n, MC.c),
  ];
  await writeBatch(store, recordBatch({ accountStates: states }));
  await writeBatch(store, recordBatch({ accountStates: states.slice(0, 2) }));
  loaded.states = states;
  // DNS, multisig, vesting and sale contracts at mc a; the DNS item's next version at c (above the watermark).
  await writeBatch(store, recordBatch({ accountStates: contractStates(MC.a, MC.c) }));

  // The local chain, a masterchain block per batch as the writer gets them; traces and actions as the
  // tracer publishes them, some published twice (a replay stores each fact once).
  for (const batch of loaded.localnet.batches) await writeBatch(store, batch);
  for (const { traces, actions } of [loaded.localnet, loaded.recorded, loaded.localnet]) await writeBatch(store, recordBatch({ traces, actions }));
  await writeBatch(store, recordBatch({ traces: loaded.recorded.traces.slice(0, 5), actions: loaded.recorded.actions.slice(0, 20) }));
  // The tracer's batches of the local chain, the first marked twice (a replay; the newer receipt counts).
  await writeBatch(store, { ...recordBatch({}), traceReceipts: traceReceiptsOf(loaded.localnet, 1_700_000_000_000) });
  await writeBatch(store, { ...recordBatch({}), traceReceipts: traceReceiptsOf(loaded.localnet, 1_800_000_000_000).slice(0, 1) });
  await saveWatermark(store, { mc_seqno: MC.a, gen_utime: 1700000001 });
  await saveWatermark(store, { mc_seqno: WATERMARK, gen_utime: 1700000002 });
  await saveTracesWatermark(store, { mc_seqno: loaded.localnet.mcSeqnos[1] });
  await saveTracesWatermark(store, { mc_seqno: WATERMARK });
  return loaded;
}

// ---------------------------------------------------------------------------------------------
// The reads: every exported read function, each filter, order, direction and page variant.

const READS = {
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
type ReadName = keyof typeof READS;
type ArgsOf<F> = F extends (store: Store, ...rest: infer A) => unknown ? A : never;
/** Every read with its calls; `empty` marks a call whose answer is rightly empty (else it must not be). */
type Cases = { [K in ReadName]: { args: ArgsOf<(typeof READS)[K]>; empty?: true }[] };

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

function readCases(data: Loaded): Cases {
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
    readTopBalances: [{ args: [scope, { limit: 10, offset: 0 }] }, { args: [plain, { limit: 2, offset: 1 }] }],
    readBlocks: [
      ...Object.values(blockFilters).map((filter) => ({ args: [scope, filter, { ...page, sort: 'desc' as const, order: 'gen_utime' as const }] as ArgsOf<typeof readBlocks> })),
      ...blockPages.map((p) => ({ args: [scope, {}, p] as ArgsOf<typeof readBlocks> })),
      { args: [scope, { mcSeqno: WATERMARK }, { limit: 1000, offset: 0, sort: 'asc', order: 'id' }] },
      { args: [scope, { mcSeqno: MC.c }, { limit: 10, offset: 0, sort: 'asc', order: 'id' }], empty: true },
    ],
    masterchainInfo: [{ args: [{ mc_seqno: WATERMARK, gen_utime: 1700000002 }, { timeoutMs: 3000 }] }],
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
    ],
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

function nonEmpty(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v > 0;
  return v !== null && v !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Comparison.

/** True when the statement orders its result at the top level (not only inside a subquery). */
function ordersAtTop(sql: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === "'") inString = false;
    } else if (c === "'") inString = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /^ORDER\s+BY\b/i.test(sql.slice(i, i + 12))) return true;
  }
  return false;
}

const sorted = (rows: Row[]) => rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();

/** Why two results differ, or null. */
function difference(sql: string, old: Row[], current: Row[]): string | null {
  const keysOf = (rows: Row[]) => JSON.stringify(rows.length > 0 ? Object.keys(rows[0]).sort() : []);
  if (old.length !== current.length) return `${old.length} rows on 18.16, ${current.length} on current`;
  if (keysOf(old) !== keysOf(current)) return `columns ${keysOf(old)} on 18.16, ${keysOf(current)} on current`;
  const a = ordersAtTop(sql) ? old.map((r) => JSON.stringify(r, Object.keys(r).sort())) : sorted(old);
  const b = ordersAtTop(sql) ? current.map((r) => JSON.stringify(r, Object.keys(r).sort())) : sorted(current);
  const i = a.findIndex((x, k) => x !== b[k]);
  return i < 0 ? null : `row ${i}: 18.16 ${a[i].slice(0, 300)} / current ${b[i].slice(0, 300)}`;
}

// ---------------------------------------------------------------------------------------------

/**
 * The harness's own table dumps, 64-bit integers quoted on both engines. FINAL: when a
 * ReplacingMergeTree collapses duplicates (background merges, on either engine) is unspecified, so the
 * raw row count is not comparable; the deduplicated rows, which every read sees, are.
 */
const DUMP_SETTINGS = { output_format_json_quote_64bit_integers: '1' };
/**
 * The harness's loading INSERTs: one per table, holding every row the writer's many INSERTs stored
 * (merges are stopped on 18.16 so that none is collapsed before the export). chdb's views must see
 * each of them, as 18.16's views saw each INSERT: a view keyed otherwise than its source (e.g.
 * nft_items_by_owner, by owner) keeps a row per version. A current engine would collapse the one
 * insert block before its views see it (optimize_on_insert; 18.16 has no such step).
 */
const LOAD_SETTINGS = { optimize_on_insert: '0' };
const dumpSql = (table: string) =>
  // applied_at is each engine's now().
  `SELECT ${table === 'schema_migrations' ? 'version, name' : '*'} FROM ${database}.${table} FINAL`;

let direct: Store;
let proxy: Awaited<ReturnType<typeof startProxy>>;
const steps: Step[] = [];
let label = 'migrate';
let called = new Map<ReadName, number>();
/** Tables (not views) of the database, and the tables materialized views fill. */
let tables: string[] = [];
const viewTargets = new Set<string>();
/** Each table's rows as stored (TabSeparatedWithNames), and deduplicated after loading and at the end. */
const exported = new Map<string, string>();
const loadedDump = new Map<string, Row[]>();
const finalDump = new Map<string, Row[]>();
/** A step for chdb and the rows 18.16 gave for it (null: it must only succeed). */
type Check = { what: string; step: ChdbStep; rows: Row[] | null };

async function dump18(table: string): Promise<Row[]> {
  const rs = await direct.client.query({ query: dumpSql(table), format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 1 } });
  return (await rs.json()) as Row[];
}

beforeAll(async () => {
  direct = createStore({ url: CLICKHOUSE_URL, database });
  proxy = await startProxy(CLICKHOUSE_URL);
  const viaProxy = createStore({ url: proxy.url, database });
  const recording = recordingStore(viaProxy, steps, proxy.sent, () => label);

  await migrate(recording);
  // Every row each INSERT stored stays as stored until exported (LOAD_SETTINGS says why): no merges here.
  const migrated = await direct.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = ${str(database)} AND engine LIKE '%MergeTree'`);
  for (const { name } of migrated) await direct.command(`SYSTEM STOP MERGES ${database}.${name}`);
  const data = await load(viaProxy);

  const found = await direct.query<{ name: string; engine: string; create_table_query: string }>(
    `SELECT name, engine, create_table_query FROM system.tables WHERE database = ${str(database)} ORDER BY name`,
  );
  tables = found.filter((t) => !t.engine.endsWith('View')).map((t) => t.name);
  for (const view of found.filter((t) => t.engine === 'MaterializedView')) {
    const target = / TO \w+\.(\w+)/.exec(view.create_table_query);
    if (!target) throw new Error(`materialized view ${view.name} has no TO table; the harness cannot tell its inner table: ${view.create_table_query}`);
    viewTargets.add(target[1]);
  }
  for (const table of tables) {
    // Every row as stored, duplicates included: chdb gets the same parts' worth of rows to deduplicate.
    const rs = await direct.client.query({ query: `SELECT * FROM ${database}.${table}`, format: 'TabSeparatedWithNames' });
    exported.set(table, await rs.text());
    loadedDump.set(table, await dump18(table));
  }
  // Both engines read merged tables (chdb: the "merging" checks): which copy of a row any() meets first, or
  // whether a replaced version still answers, must not depend on when merges ran.
  for (const table of tables) {
    await direct.command(`SYSTEM START MERGES ${database}.${table}`);
    await direct.command(`OPTIMIZE TABLE ${database}.${table} FINAL`);
  }

  called = new Map();
  const cases = readCases(data);
  for (const [name, list] of Object.entries(cases) as [ReadName, Cases[ReadName]][]) {
    for (const [i, c] of list.entries()) {
      label = `${name}#${i}`;
      const before = steps.length;
      const result = await (READS[name] as (store: Store, ...args: unknown[]) => Promise<unknown>)(recording, ...c.args);
      expect(nonEmpty(result), `${label} answered ${c.empty ? 'something' : 'nothing'}`).toBe(!c.empty);
      called.set(name, (called.get(name) ?? 0) + steps.length - before);
    }
  }
  for (const table of tables) finalDump.set(table, await dump18(table));
  await viaProxy.close();
}, 300_000);

afterAll(async () => {
  await direct?.close();
  await dropDatabase(CLICKHOUSE_URL, database);
  await proxy?.close();
});

describe('store SQL on a current ClickHouse (chdb) beside 18.16', () => {
  it('exercises every exported read function of the store (a new read fails here until it has cases)', async () => {
    const modules = [...readdirSync(join(STORE_SRC, 'reads')).map((f) => join(STORE_SRC, 'reads', f)), join(STORE_SRC, 'index-progress.ts'), join(STORE_SRC, 'trace-progress.ts')].filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    const exported = new Set<string>();
    for (const file of modules) {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) if (typeof value === 'function') exported.add(name);
    }
    const covered = new Set([...Object.keys(READS), ...Object.keys(NOT_READS)]);
    expect([...exported].filter((n) => !covered.has(n)), 'exported but neither read here nor listed in NOT_READS').toEqual([]);
    expect([...covered].filter((n) => !exported.has(n)), 'listed here but not exported').toEqual([]);
    // Each read sent SQL of its own.
    for (const name of Object.keys(READS) as ReadName[]) expect(called.get(name) ?? 0, name).toBeGreaterThan(0);
  });

  it('runs every migration and read query on the current engine with the same results', async () => {
    const asChdb = (s: Step): ChdbStep => ({ sql: s.sql, settings: s.settings, format: s.kind === 'query' ? 'JSONEachRow' : null });
    const dump = (at: string, rows: Map<string, Row[]>) =>
      tables.map((t): Check => ({ what: `${at} ${t}`, step: { sql: dumpSql(t), settings: DUMP_SETTINGS, format: 'JSONEachRow' }, rows: rows.get(t)! }));
    const migration = steps.filter((s) => s.read === 'migrate');
    // Each migration's statements are applied again before the ledger records it, as after an
    // interruption (a rerun starts the unrecorded migration over): each must be idempotent here too.
    const migrationChecks: Check[] = [];
    let unrecorded: Step[] = [];
    for (const s of migration) {
      if (s.kind === 'command' && /^INSERT INTO \S+\.schema_migrations\b/.test(s.sql)) {
        migrationChecks.push(...unrecorded.map((u) => ({ what: 'migration applied again', step: asChdb(u), rows: null })));
        unrecorded = [];
      } else if (s.kind === 'command' && !/\.schema_migrations/.test(s.sql) && !/\b(ADD|DROP) COLUMN\b/.test(s.sql)) {
        // (the ledger's and the lock's own statements are not a migration's; an ADD or DROP COLUMN, which
        // 18.16 cannot make conditional, fails when run again and migrate takes that as applied: store.test.ts)
        unrecorded.push(s);
      }
      migrationChecks.push({ what: `migration ${s.kind}`, step: asChdb(s), rows: s.rows });
    }
    const checks: Check[] = [
      ...migrationChecks,
      // Tables filled by materialized views get their rows from the views, on chdb as on 18.16.
      ...tables
        .filter((t) => t !== 'schema_migrations' && !viewTargets.has(t))
        .map((t) => ({ what: `loading ${t}`, step: { sql: `INSERT INTO ${database}.${t} FORMAT TabSeparatedWithNames`, settings: LOAD_SETTINGS, format: null, data: exported.get(t)! }, rows: null })),
      ...tables.map((t) => ({ what: `merging ${t}`, step: { sql: `OPTIMIZE TABLE ${database}.${t} FINAL`, settings: {}, format: null }, rows: null })),
      ...dump('loaded', loadedDump),
      ...steps.filter((s) => s.read !== 'migrate').map((s) => ({ what: `${s.read} ${s.kind}`, step: asChdb(s), rows: s.rows })),
      ...dump('final', finalDump),
    ];

    const { version, results } = await runChdb(checks.map((c) => c.step));
    expect(Number(version.split('.')[0]), `chdb's ClickHouse ${version}`).toBeGreaterThanOrEqual(25);
    expect(results).toHaveLength(checks.length);
    const findings = checks.flatMap((c, i) => {
      const r = results[i];
      const sql = c.step.sql.slice(0, 300);
      if (!r.ok) return [`${c.what}: fails on ${version}: ${r.error.slice(0, 400)}\n  ${sql}`];
      const diff = c.rows && difference(c.step.sql, c.rows, r.rows.map((line) => JSON.parse(line) as Row));
      return diff ? [`${c.what}: differs: ${diff}\n  ${sql}`] : [];
    });
    expect(findings).toEqual([]);
  });

  it('sends only settings that both engines know (anything else is "Unknown setting")', async () => {
    const names = [...new Set(steps.flatMap((s) => Object.keys(s.settings)))].sort();
    expect(names.length).toBeGreaterThan(0);
    const sql = `SELECT name FROM system.settings WHERE name IN ${strList(names)} ORDER BY name`;
    const old = (await direct.query<{ name: string }>(sql)).map((r) => r.name);
    const { results } = await runChdb([{ sql, settings: {}, format: 'JSONEachRow' }]);
    const r = results[0];
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const current = r.ok ? r.rows.map((l) => (JSON.parse(l) as { name: string }).name) : [];
    expect({ old, current }).toEqual({ old: names, current: names });
  });
});
