import { message } from '../layout.js';
import { msgAddress } from '../tlb/address.js';
import { coins } from '../tlb/currency.js';
import { bigUint } from '../tlb/primitives.js';

/**
 * The minter `mint` (0x642b7d07) as toncenter's classifier reads it: `to_address` as any MsgAddress,
 * so a minter that puts the amount first still reads (into garbage values toncenter serves as they
 * are). Not in MESSAGE_LAYOUTS: /decode keeps ton-marker's stricter `jetton_mint`.
 */
export const jettonMintLoose = message('jetton_mint', 0x642b7d07, { query_id: bigUint(64), to_address: msgAddress, ton_amount: coins });
