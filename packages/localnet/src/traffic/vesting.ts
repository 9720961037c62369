import { type Address, beginCell, Cell, contractAddress, external, type MessageRelaxed, type StateInit, storeMessage, storeMessageRelaxed } from '@ton/core';
import { type KeyPair, keyPairFromLabel, signBytes } from './keys.js';

/**
 * Vesting wallet v1 code, the hex constant `CODE_HEX` of tonweb 0.0.66
 * `src/contract/lockup/VestingWalletV1.js` (code hash tItTGr7DtxRjgpH3137W3J9qJynvyiBHcTc3TUrotZA=);
 * a test compares it with tonweb's.
 */
export const VESTING_V1_CODE_HEX =
  'b5ee9c7241021c010003fb000114ff00f4a413f4bcf2c80b01020120030203b8f28308d71820d31fd31fd31f02f823bbf264ed44d0d31fd31fd3ff30' +
  '5abaf2a15033baf2a202f9014033f910f2a3f800db3c20d74ac0018e99ed44ed45ed47915bed67ed65ed648e82db3ced41edf101f2ff9130e2f841a4' +
  'f861db3c1b1413020148110402012008050201200706020db9846db3cdb3c81b1a0129ba462db3cf845f846f847f848f849f84af84bf84481b020120' +
  '0e090201620d0a02016a0c0b012fa2c76cf3e9100723281f2fff2743e112040423d029be84c61b000fa25fb513435c2c7e014bad346d9e36fc22470d' +
  '4080847a4937d29910ce6903e9ff9837812801b7810148987159f318401b02016e100f0019af1df6a26840106b90eb858fc00019adce76a26840206b' +
  '90eb85ffc003acd06c2220d749c160915be001d0d3030171b0915be0fa4030db3c01d31fd33ff84b5240c705238210a7733acdbab08ea46c12db3c82' +
  '10f7733acd01708018c8cb055004cf1623fa0213cb6acb1fcb3fc98040fb00e30e1b141201cef84a5240c7050382107258a69bba13b08ed18e2c01fa' +
  '407fc8ca0002fa4401c8ca07cbffc9d0f8441023810108f441f86420d74ac200209501d430d001deb312e68210f258a69b32708018c8cb055004cf16' +
  '23fa0213cb6acb1fcb3fc98040fb00db3c925f03e2130066f848f847f846f845c8cb3fcb1fcb1fcb1ff849fa02f84acf16f84bcf16c9f844f843f842' +
  'f841c8cb1fcb1fcbfff400ccc9ed54025cd307d4d1f823db3c20c2008e9b22c003f2e06421d0d303fa4031fa40f84a5220c705b3925f04e30d9130e2' +
  '01fb001a1503fa21fa4401c8ca07cbffc9d0f844810108f40a6fa1318f5f330172b0c002f2e06501fa003171d721fa0031fa0031d33f31d31f31d300' +
  '01c000f2e066d3000193d430d0de2171db3c8e2a31d31f302082104e73744bba21821047657424bab121821056744370bab1018210566f7465bab1f2' +
  'e067e30e70925f03e220c200191716000e9372fb029130e202ea0170db3c8e6d20d749c2008e63d31f21c00022830bbab122811001bab122821047d5' +
  '4391bab1228210595f07bcbab122821069fb306cbab1228210566f7465bab122821056744370bab1f2e06701c00021d749c200b08e15d3073020c064' +
  '21c077b121c044b101c057b1f2e0689130e29130e2e30d1918001ad31f308210566f7465baf2e067004401fa4401c3ff925b70e001f833206e925b70' +
  'e0d020d7498307b9925b70e0d70bffba0060f845f846a05210bc923070e0f845f848a05210b99330f849e0f849f849f84513a1f847a904f846f847a9' +
  '041023a984a1007eed44d0d31f01f861d31f01f862d3ff01f863f40401f864d401d0d33f01f865d31f01f866d31f01f867d31f01f868fa0001f869fa' +
  '4001f86afa4001f86bd1d10a20c6a7';

/** tonweb's wallet id for vesting wallets: 0x10C + workchain, unlike standard wallets'. */
export const VESTING_WALLET_ID = 0x10c;
/** The vesting wallet only sends with this mode from externals (pay fees separately, ignore errors). */
const SEND_MODE = 3;
const VALIDITY_S = 60;

const code = Cell.fromBoc(Buffer.from(VESTING_V1_CODE_HEX, 'hex'))[0];

export type VestingParams = { startTime: number; totalDuration: number; unlockPeriod: number; cliffDuration: number; totalAmount: bigint; sender: Address; owner: Address };

export type Vesting = {
  address: Address;
  init: StateInit;
  keys: KeyPair;
  /** A signed external (v3-like: wallet_id, valid_until or all ones for seqno 0, seqno, then mode and message). */
  external(d: { seqno: number; now: number; message: MessageRelaxed }): Uint8Array;
};

/**
 * data: seqno:uint32 subwallet_id:uint32 public_key:uint256 whitelist:(HashmapE) ^[ vesting_start_time:uint64
 *   vesting_total_duration:uint32 unlock_period:uint32 cliff_duration:uint32 vesting_total_amount:Grams
 *   vesting_sender_address:MsgAddress owner_address:MsgAddress ], as tonweb's createDataCell writes it.
 */
export function createVesting(label: string, p: VestingParams): Vesting {
  const keys = keyPairFromLabel(label);
  const params = beginCell()
    .storeUint(p.startTime, 64)
    .storeUint(p.totalDuration, 32)
    .storeUint(p.unlockPeriod, 32)
    .storeUint(p.cliffDuration, 32)
    .storeCoins(p.totalAmount)
    .storeAddress(p.sender)
    .storeAddress(p.owner)
    .endCell();
  const data = beginCell().storeUint(0, 32).storeUint(VESTING_WALLET_ID, 32).storeBuffer(keys.publicKey).storeBit(0).storeRef(params).endCell();
  const init = { code, data };
  const address = contractAddress(0, init);
  return {
    address,
    init,
    keys,
    external(d) {
      const signing = beginCell()
        .storeUint(VESTING_WALLET_ID, 32)
        .storeUint(d.seqno === 0 ? 0xffffffff : d.now + VALIDITY_S, 32)
        .storeUint(d.seqno, 32)
        .storeUint(SEND_MODE, 8)
        .storeRef(beginCell().store(storeMessageRelaxed(d.message)).endCell())
        .endCell();
      const body = beginCell().storeBuffer(signBytes(keys, signing.hash())).storeSlice(signing.asSlice()).endCell();
      return beginCell().store(storeMessage(external({ to: address, body }))).endCell().toBoc();
    },
  };
}
