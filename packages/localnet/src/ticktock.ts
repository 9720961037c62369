import { type Address, beginCell, type ShardAccount, toNano } from '@ton/core';
import type { Blockchain } from '@ton/sandbox';

/**
 * Code of the masterchain tick-tock stubs: counts its invocations in c4.
 *   PUSH c4  CTOS  LDU 32  ENDS  INC  NEWC  STU 32  ENDC  POP c4
 * The real config and elector contracts need validator elections and a full config contract state;
 * the stubs give every masterchain block real tick and tock transactions on special accounts instead.
 */
export const TICKTOCK_STUB_CODE_HEX = 'ed44d0d31fd1a4c8cb1fc9ed54';

/** Deploys the stub on `address` (a special account with tick and tock) unless it is active already. */
export async function deployTickTockStub(bc: Blockchain, address: Address): Promise<void> {
  const contract = await bc.getContract(address);
  if (contract.accountState?.type === 'active') return;
  const code = beginCell().storeBuffer(Buffer.from(TICKTOCK_STUB_CODE_HEX, 'hex')).endCell();
  const data = beginCell().storeUint(0, 32).endCell();
  const account: ShardAccount = {
    account: {
      addr: address,
      storageStats: { used: { cells: 2n, bits: BigInt(code.bits.length + data.bits.length) }, lastPaid: 0, duePayment: null, storageExtra: null },
      storage: { lastTransLt: 0n, balance: { coins: toNano(1_000_000) }, state: { type: 'active', state: { special: { tick: true, tock: true }, code, data } } },
    },
    lastTransactionHash: 0n,
    lastTransactionLt: 0n,
  };
  await bc.setShardAccount(address, account);
}
