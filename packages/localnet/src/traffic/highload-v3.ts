import { type Address, beginCell, Cell, contractAddress, type MessageRelaxed, type StateInit, storeMessageRelaxed } from '@ton/core';
import { type KeyPair, signBytes } from './keys.js';

/**
 * Highload wallet v3 code, the hex constant `CODE_HEX` of tonweb 0.0.66
 * `src/contract/highloadWallet/HighloadWalletContractV3.js` (code hash
 * EayteVWEQJDyg78ji8FEmHH3g+fMCXlAjT9IWUg+hSU=, seen on mainnet); a test compares it with tonweb's.
 */
export const HIGHLOAD_V3_CODE_HEX =
  'b5ee9c7241021001000228000114ff00f4a413f4bcf2c80b01020120020d02014803040078d020d74bc00101c060b0915be101d0d3030171b0915be0fa4030f828c705b39130e0d31f018210ae42e5a4ba9d8040d721d74cf82a01ed55fb04e030020120050a02027306070011adce76a2686b85ffc00201200809001aabb6ed44d0810122d721d70b3f0018aa3bed44d08307d721d70b1f0201200b0c001bb9a6eed44d0810162d721d70b15800e5b8bf2eda2edfb21ab09028409b0ed44d0810120d721f404f404d33fd315d1058e1bf82325a15210b99f326df82305aa0015a112b992306dde923033e2923033e25230800df40f6fa19ed021d721d70a00955f037fdb31e09130e259800df40f6fa19cd001d721d70a00937fdb31e0915be270801f6f2d48308d718d121f900ed44d0d3ffd31ff404f404d33fd315d1f82321a15220b98e12336df82324aa00a112b9926d32de58f82301de541675f910f2a106d0d31fd4d307d30cd309d33fd315d15168baf2a2515abaf2a6f8232aa15250bcf2a304f823bbf2a35304800df40f6fa199d024d721d70a00f2649130e20e01fe5309800df40f6fa18e13d05004d718d20001f264c858cf16cf8301cf168e1030c824cf40cf8384095005a1a514cf40e2f800c94039800df41704c8cbff13cb1ff40012f40012cb3f12cb15c9ed54f80f21d0d30001f265d3020171b0925f03e0fa4001d70b01c000f2a5fa4031fa0031f401fa0031fa00318060d721d300010f0020f265d2000193d431d19130e272b1fb00b585bf03';

/** tonweb's default subwallet id for highload v3 (0x10ad). */
export const HIGHLOAD_V3_SUBWALLET_ID = 0x10ad;
/** How long (s) a processed query id is remembered; also the validity window of `createdAt`. */
export const HIGHLOAD_V3_TIMEOUT_S = 3600;

const code = Cell.fromBoc(Buffer.from(HIGHLOAD_V3_CODE_HEX, 'hex'))[0];

export type HighloadV3 = { address: Address; init: StateInit };

/** data: public_key:bits256 subwallet_id:uint32 old_queries:(HashmapE) queries:(HashmapE) last_clean_time:uint64 timeout:uint22 */
export function highloadV3(publicKey: Buffer, subwalletId = HIGHLOAD_V3_SUBWALLET_ID): HighloadV3 {
  const data = beginCell()
    .storeBuffer(publicKey)
    .storeUint(subwalletId, 32)
    .storeBit(0)
    .storeBit(0)
    .storeUint(0, 64)
    .storeUint(HIGHLOAD_V3_TIMEOUT_S, 22)
    .endCell();
  const init = { code, data };
  return { address: contractAddress(0, init), init };
}

/**
 * The external body: signature:bits512 ^[ subwallet_id:uint32 message_to_send:^Cell send_mode:uint8
 * query_id:(shift:uint13 bit_number:uint10) created_at:uint64 timeout:uint22 ].
 */
export function highloadV3Body(keys: KeyPair, d: { message: MessageRelaxed; sendMode: number; queryId: number; createdAt: number; subwalletId?: number }): Cell {
  const signing = beginCell()
    .storeUint(d.subwalletId ?? HIGHLOAD_V3_SUBWALLET_ID, 32)
    .storeRef(beginCell().store(storeMessageRelaxed(d.message)).endCell())
    .storeUint(d.sendMode, 8)
    .storeUint(Math.floor(d.queryId / 1023), 13)
    .storeUint(d.queryId % 1023, 10)
    .storeUint(d.createdAt, 64)
    .storeUint(HIGHLOAD_V3_TIMEOUT_S, 22)
    .endCell();
  return beginCell().storeBuffer(signBytes(keys, signing.hash())).storeRef(signing).endCell();
}
