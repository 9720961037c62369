import { beginCell, Cell, loadTransaction as coreLoadTransaction, type Message as CoreMessage, type TransactionComputePhase } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { parseBoc } from '../boc/parse-boc.js';
import { Slice } from '../boc/slice.js';
import { messageRecord } from '../normalize/normalize-block.js';
import { fixtureTransactions } from '../test-support/fixtures.js';
import type { TrComputePhase } from './transaction.js';
import { loadTransaction } from './transaction.js';

// Differential test: every fixture transaction read by this decoder and by @ton/core from the same BoC.
const txs = fixtureTransactions();
const CORE_STATUS = { uninitialized: 'uninit', frozen: 'frozen', active: 'active', 'non-existing': 'nonexist' } as const;

function coreCompute(c: TransactionComputePhase): TrComputePhase {
  if (c.type === 'skipped') return { type: 'skipped', reason: c.reason.replace('-', '_') as never };
  return {
    type: 'vm',
    success: c.success,
    msgStateUsed: c.messageStateUsed,
    accountActivated: c.accountActivated,
    gasFees: c.gasFees,
    gasUsed: c.gasUsed,
    gasLimit: c.gasLimit,
    gasCredit: c.gasCredit ?? undefined,
    mode: c.mode,
    exitCode: c.exitCode,
    exitArg: c.exitArg ?? undefined,
    vmSteps: c.vmSteps,
    vmInitStateHash: c.vmInitStateHash.toString(16).padStart(64, '0'),
    vmFinalStateHash: c.vmFinalStateHash.toString(16).padStart(64, '0'),
  };
}

/** TEP-467 normalization written independently with @ton/core's builder. */
function coreHashNorm(m: CoreMessage): string {
  if (m.info.type !== 'external-in') throw new Error('not external-in');
  const cell = beginCell()
    .storeUint(0b10, 2)
    .storeUint(0, 2)
    .storeAddress(m.info.dest)
    .storeCoins(0)
    .storeBit(false)
    .storeBit(true)
    .storeRef(m.body)
    .endCell();
  return cell.hash().toString('base64');
}

describe('loadTransaction() against @ton/core', () => {
  it('covers the 22 fixture categories', () => {
    expect(new Set(txs.map((t) => t.category)).size).toBe(22);
  });

  for (const fx of txs) {
    it(`${fx.category} ${fx.account}:${fx.lt}`, () => {
      const bytes = Buffer.from(fx.boc_base64, 'base64');
      const table = parseBoc(bytes);
      const ours = loadTransaction(new Slice(table, table.roots[0], 'Transaction'));
      const core = coreLoadTransaction(Cell.fromBoc(bytes)[0].beginParse());

      expect(table.hashHex(table.roots[0])).toBe(fx.hash_hex);
      expect(ours.lt).toBe(core.lt);
      expect(ours.lt.toString()).toBe(fx.lt);
      expect(ours.now).toBe(core.now);
      expect(ours.accountAddr).toBe(core.address.toString(16).padStart(64, '0'));
      expect(BigInt('0x' + ours.prevTransHash)).toBe(core.prevTransactionHash);
      expect(ours.prevTransLt).toBe(core.prevTransactionLt);
      expect(ours.outMsgCnt).toBe(core.outMessagesCount);
      expect(ours.outMsgs).toHaveLength(core.outMessages.size);
      expect(ours.origStatus).toBe(CORE_STATUS[core.oldStatus]);
      expect(ours.endStatus).toBe(CORE_STATUS[core.endStatus]);
      expect(ours.totalFees.grams).toBe(core.totalFees.coins);
      expect(BigInt('0x' + ours.stateUpdate.newHash)).toBe(BigInt('0x' + core.stateUpdate.newHash.toString('hex')));

      const d = ours.description;
      const cd = core.description;
      const coreType = { generic: 'ord', storage: 'storage', 'tick-tock': 'tick_tock', 'split-prepare': 'split_prepare', 'split-install': 'split_install', 'merge-prepare': 'merge_prepare', 'merge-install': 'merge_install' }[cd.type];
      expect(d.type).toBe(coreType);
      if (d.type === 'ord' && cd.type === 'generic') {
        expect(d.creditFirst).toBe(cd.creditFirst);
        expect(d.aborted).toBe(cd.aborted);
        expect(d.destroyed).toBe(cd.destroyed);
        expect(d.storagePh?.storageFeesCollected).toBe(cd.storagePhase?.storageFeesCollected);
        expect(d.storagePh?.statusChange).toBe(cd.storagePhase?.statusChange);
        expect(d.creditPh?.credit.grams).toBe(cd.creditPhase?.credit.coins);
        expect(d.computePh).toEqual(coreCompute(cd.computePhase));
        expect(d.action?.resultCode).toBe(cd.actionPhase?.resultCode);
        expect(d.action?.totActions).toBe(cd.actionPhase?.totalActions);
        expect(d.action?.msgsCreated).toBe(cd.actionPhase?.messagesCreated);
        expect(d.action?.totalFwdFees).toBe(cd.actionPhase?.totalFwdFees ?? undefined);
        expect(d.action?.totMsgSize.bits).toBe(cd.actionPhase?.totalMessageSize.bits);
        const bounce = cd.bouncePhase;
        if (!bounce) expect(d.bounce).toBeUndefined();
        else if (bounce.type === 'ok') expect(d.bounce).toEqual({ type: 'ok', msgSize: bounce.messageSize, msgFees: bounce.messageFees, fwdFees: bounce.forwardFees });
        else if (bounce.type === 'no-funds') expect(d.bounce).toEqual({ type: 'nofunds', msgSize: bounce.messageSize, reqFwdFees: bounce.requiredForwardFees });
        else expect(d.bounce).toEqual({ type: 'negfunds' });
      }
      if (d.type === 'tick_tock' && cd.type === 'tick-tock') {
        expect(d.isTock).toBe(cd.isTock);
        expect(d.aborted).toBe(cd.aborted);
        expect(d.computePh).toEqual(coreCompute(cd.computePhase));
        expect(d.action?.resultCode).toBe(cd.actionPhase?.resultCode);
        expect(d.action?.success).toBe(cd.actionPhase?.success);
      }

      // Messages: hashes, body hashes and value fields.
      const pairs: [ReturnType<typeof messageRecord>, CoreMessage, Cell][] = [];
      if (ours.inMsg && core.inMessage) {
        const raw = Cell.fromBoc(bytes)[0].refs[0].refs[0];
        pairs.push([messageRecord(table, ours.inMsg), core.inMessage, raw]);
      } else {
        expect(ours.inMsg).toBeUndefined();
        expect(core.inMessage).toBeFalsy();
      }
      const coreOut = [...core.outMessages.values()];
      ours.outMsgs.forEach((m, k) => pairs.push([messageRecord(table, m), coreOut[k], Cell.fromBoc(bytes)[0]]));
      for (const [rec, cm] of pairs) {
        expect(Buffer.from(rec.message_content.hash, 'base64').equals(cm.body.hash())).toBe(true);
        expect(Cell.fromBase64(rec.message_content.body).hash().equals(cm.body.hash())).toBe(true);
        if (cm.init) expect(rec.init_state).not.toBeNull();
        else expect(rec.init_state).toBeNull();
        if (cm.info.type === 'internal') {
          expect(rec.value).toBe(cm.info.value.coins.toString());
          expect(rec.bounced).toBe(cm.info.bounced);
          expect(rec.created_lt).toBe(cm.info.createdLt.toString());
          expect(rec.source).toBe(cm.info.src.toRawString().toUpperCase().replace(/^(-?\d+):/, '$1:'));
        }
        if (cm.info.type === 'external-in') expect(rec.hash_norm).toBe(coreHashNorm(cm));
      }
      if (ours.inMsg) {
        const inRaw = Cell.fromBoc(bytes)[0].refs[0].refs[0];
        expect(messageRecord(table, ours.inMsg).hash).toBe(inRaw.hash().toString('base64'));
      }
    });
  }
});
