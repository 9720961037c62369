import { message } from '../layout.js';
import { msgAddress, msgAddressInt } from '../tlb/address.js';
import { coins } from '../tlb/currency.js';
import { anyCell, bigUint, eitherCell, maybe, refCell, uint, varUint } from '../tlb/primitives.js';

/*
 * Jettons: TEP-74 (ton-blockchain/TEPs text/0074-jettons-standard.md) and the minters of
 * ton-blockchain/token-contract and the stablecoin contract (USDT, Notcoin), as ton-marker's scheme
 * writes them (amounts are `VarUInteger 16` where TEP-74 says Coins: the same bits).
 */

const amount = varUint(16);

export const jettonTransfer = message('jetton_transfer', 0x0f8a7ea5, {
  query_id: bigUint(64),
  amount,
  destination: msgAddress,
  response_destination: msgAddress,
  custom_payload: maybe(refCell),
  forward_ton_amount: amount,
  forward_payload: eitherCell,
});

/** Preferred reading: with the `Either` bit of the forward payload. */
export const jettonInternalTransfer = message('jetton_internal_transfer', 0x178d4519, {
  query_id: bigUint(64),
  amount,
  from: msgAddress,
  response_address: msgAddress,
  forward_ton_amount: amount,
  forward_payload: eitherCell,
});

/** Fallback reading when a minter left out the `Either` bit: the rest of the body is the payload. */
export const jettonInternalTransferNoEither = message('jetton_internal_transfer', 0x178d4519, {
  query_id: bigUint(64),
  amount,
  from: msgAddress,
  response_address: msgAddress,
  forward_ton_amount: amount,
  forward_payload: anyCell,
});

export const jettonBurn = message('jetton_burn', 0x595f07bc, {
  query_id: bigUint(64),
  amount,
  response_destination: msgAddress,
  custom_payload: maybe(refCell),
});

export const jettonBurnNotification = message('jetton_burn_notification', 0x7bdd97de, {
  query_id: bigUint(64),
  amount,
  sender: msgAddress,
  response_destination: msgAddress,
});

/** TEP-74's `transfer_notification`. */
export const jettonNotify = message('jetton_notify', 0x7362d09c, {
  query_id: bigUint(64),
  amount,
  sender: msgAddress,
  forward_payload: eitherCell,
});

/** token-contract minter `mint` (the internal_transfer it forwards follows in a ref, not in the scheme). */
export const jettonMint = message('jetton_mint', 0x642b7d07, { query_id: bigUint(64), to_address: msgAddressInt, ton_amount: coins });

/** Minter `mint` op 21 (0x15) with the internal_transfer as `master_msg`. */
export const minterJettonMint = message('minter_jetton_mint', 0x00000015, {
  query_id: bigUint(64),
  to_address: msgAddress,
  ton_amount: coins,
  master_msg: refCell,
});

export const jettonChangeAdmin = message('jetton_change_admin', 0x6501f354, { query_id: bigUint(64), new_admin_address: msgAddress });

/** Stablecoin minter: lock status of a wallet. */
export const jettonSetStatus = message('jetton_set_status', 0xeed236d3, { query_id: bigUint(64), status: uint(4) });

export const JETTON_MESSAGES = [
  jettonTransfer,
  jettonInternalTransfer,
  jettonInternalTransferNoEither,
  jettonBurn,
  jettonBurnNotification,
  jettonNotify,
  jettonMint,
  minterJettonMint,
  jettonChangeAdmin,
  jettonSetStatus,
] as const;
