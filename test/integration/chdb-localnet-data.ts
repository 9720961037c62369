/**
 * Token, trace and action records for store-chdb.test.ts, made the way the pipeline makes them: a
 * local chain (@tonstream/localnet, in process) mints, transfers and burns Jettons and mints and
 * transfers NFTs; each block is decoded, the states of the accounts it touched are read as of its
 * round, the decoder's token events are put on the transactions, and the tracer's assembler and the
 * action classifier turn each round's transactions into traces and actions. Recorded mainnet traces
 * (test/fixtures/mainnet/traces) add composite actions with their parts (ancestor types).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cell } from '@ton/core';
import { classifyTrace, type ContractInterfaces, type FixtureTrace, fromFixtureTrace } from '@tonstream/actions';
import { accountStateRecord, decodeBlock } from '@tonstream/block';
import { type Chain, createChain, createTraffic, type StoredBlock } from '@tonstream/localnet';
import type { AccountStateRecord, TokenEvent, TransactionRecord } from '@tonstream/records';
import { batchRows, recordBatch, type RecordBatch } from '@tonstream/store';
import { type ActionRecord, assembleMasterchainBlock, emptyState, type TraceRecord } from '@tonstream/traces';
import { tokenEventsOfBlock } from '@tonstream/decoder-service';

export type LocalnetData = { batches: RecordBatch[]; traces: TraceRecord[]; actions: ActionRecord[]; mcSeqnos: number[] };

const TOKEN_MIX = { transfer: 4, fund_new: 0, bounce: 1, jetton_mint: 10, jetton_transfer: 20, jetton_burn: 6, jetton_bad_transfer: 2, nft_mint: 10, nft_transfer: 12, bad_op: 0, multisig_order: 0, vesting_withdraw: 0 };

/** The Account cell of a ShardAccount (`account:^Account`), as a liteserver's getAccountState answers it. */
const accountBoc = (shardAccount: Uint8Array) => Cell.fromBoc(Buffer.from(shardAccount))[0].refs[0].toBoc();

async function statesAfter(chain: Chain, block: StoredBlock, mc: StoredBlock, accounts: string[]): Promise<AccountStateRecord[]> {
  const states: AccountStateRecord[] = [];
  for (const account of accounts) {
    const s = await chain.getAccountState(account, mc.id);
    if (s.status === 'nonexist') continue;
    states.push(accountStateRecord(accountBoc(s.shardAccountBoc), { account, lastTransLt: String(s.lastTxLt), lastTransHash: Buffer.from(s.lastTxHash, 'hex').toString('base64'), mcSeqno: mc.id.seqno, genUtime: block.genUtime }));
  }
  return states;
}

/** What the tokens work hands the classifier: each Jetton wallet's owner and master, each NFT's collection. */
function interfacesOf(batches: RecordBatch[]): Map<string, ContractInterfaces> {
  const known = new Map<string, ContractInterfaces>();
  for (const b of batches) {
    const rows = batchRows(b);
    for (const w of rows.jetton_wallets) known.set(String(w.address), { JettonWallet: { address: String(w.address), owner: String(w.owner), jetton: String(w.jetton), balance: String(w.balance) } });
    for (const i of rows.nft_items) {
      const orNull = (v: unknown) => (v === '' ? null : String(v));
      known.set(String(i.address), { NftItem: { address: String(i.address), index: String(i.item_index), collection_address: orNull(i.collection_address), owner_address: orNull(i.owner_address) } });
    }
  }
  return known;
}

/**
 * `rounds` rounds of token traffic and `settle` quiet ones (so that traces complete), one batch per
 * masterchain block: its blocks, transactions (with token events), messages and the basechain states
 * its transactions left.
 */
export async function localnetData(seed: string, rounds: number, settle = 4): Promise<LocalnetData> {
  const chain = await createChain({ seed, shards: 2, now: 1_690_000_000, roundMs: 5000 });
  const traffic = await createTraffic(chain, { seed, ratePerRound: 8, mix: TOKEN_MIX });
  const batches: RecordBatch[] = [];
  const rounds_: { mcSeqno: number; transactions: TransactionRecord[] }[] = [];
  for (let r = 0; r < rounds + settle; r++) {
    const result = r < rounds ? await traffic.step() : await chain.produceRound();
    const mc = result.mc;
    const records = { blocks: [] as ReturnType<typeof decodeBlock>['block'][], transactions: [] as TransactionRecord[], messages: [] as ReturnType<typeof decodeBlock>['messages'], states: [] as AccountStateRecord[] };
    const events = new Map<string, TokenEvent>();
    for (const block of [mc, ...result.shards]) {
      const d = decodeBlock(block.boc, { mcSeqno: mc.id.seqno });
      const accounts = block.id.workchain === -1 ? [] : [...new Set(d.transactions.map((t) => t.account))];
      const states = await statesAfter(chain, block, mc, accounts);
      for (const [hash, e] of tokenEventsOfBlock(d.transactions, states)) events.set(hash, e);
      records.blocks.push(d.block);
      records.transactions.push(...d.transactions);
      records.messages.push(...d.messages);
      records.states.push(...states);
    }
    const batch = recordBatch({ blocks: records.blocks, transactions: records.transactions, messages: records.messages, accountStates: records.states });
    batch.transactions = batch.transactions.map((s) => {
      const e = events.get(s.record.hash);
      if (!e) return s;
      const record = { ...s.record, token_events: [e] };
      return { record, json: JSON.stringify(record) };
    });
    batches.push(batch);
    rounds_.push({ mcSeqno: mc.id.seqno, transactions: records.transactions });
  }
  traffic.stop();

  const known = interfacesOf(batches);
  const state = emptyState();
  const traces: TraceRecord[] = [];
  const actions: ActionRecord[] = [];
  for (const { mcSeqno, transactions } of rounds_) {
    for (const { record, transactions: txs } of assembleMasterchainBlock(state, mcSeqno, transactions, { incompleteAfterMcBlocks: settle }).finished) {
      if (record.is_incomplete) {
        traces.push(record);
        continue;
      }
      // As the tracer's classify step (services/tracer): actions carry their trace id.
      const { actions: found, state: cs } = classifyTrace({ ...record, transactions: txs }, (address) => known.get(address));
      traces.push({ ...record, trace_info: { ...record.trace_info, classification_state: cs } });
      actions.push(...found.map((a) => ({ ...a, trace_id: a.trace_id ?? record.trace_id }) as ActionRecord));
    }
  }
  return { batches, traces, actions, mcSeqnos: rounds_.map((r) => r.mcSeqno) };
}

const MAINNET_TRACES = join(import.meta.dirname, '../fixtures/mainnet/traces');

/**
 * The recorded mainnet traces, each assembled from its transactions (masterchain block by block, as
 * the tracer feeds them) and classified with the fixture's interfaces.
 */
export function mainnetTraceData(): { traces: TraceRecord[]; actions: ActionRecord[] } {
  const traces: TraceRecord[] = [];
  const actions: ActionRecord[] = [];
  for (const file of readdirSync(MAINNET_TRACES).filter((f) => f.endsWith('=.json')).sort()) {
    const { trace, lookup } = fromFixtureTrace(JSON.parse(readFileSync(join(MAINNET_TRACES, file), 'utf8')) as FixtureTrace);
    const bySeqno = new Map<number, TransactionRecord[]>();
    for (const t of trace.transactions) bySeqno.set(t.mc_block_seqno!, [...(bySeqno.get(t.mc_block_seqno!) ?? []), t]);
    const state = emptyState();
    const finished = [...bySeqno.keys()].sort((a, b) => a - b).flatMap((n) => assembleMasterchainBlock(state, n, bySeqno.get(n)!).finished);
    if (finished.length !== 1 || finished[0].record.is_incomplete) throw new Error(`${file}: assembled as ${finished.length} traces`);
    const { record, transactions } = finished[0];
    const { actions: found, state: cs } = classifyTrace({ ...record, transactions }, lookup);
    traces.push({ ...record, trace_info: { ...record.trace_info, classification_state: cs } });
    actions.push(...found.map((a) => ({ ...a, trace_id: a.trace_id ?? record.trace_id }) as ActionRecord));
  }
  return { traces, actions };
}
