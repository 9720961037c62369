/** The token tables `writeBatch` fills (their lookups are filled by views). */
export const TOKEN_TABLES = ['contract_interfaces', 'jetton_wallets', 'jetton_masters', 'nft_collections', 'nft_items', 'jetton_transfers', 'jetton_burns', 'nft_transfers'] as const;

/**
 * A balance's rank bucket: decimal digits x 100 + its first two digits (one digit when it has one),
 * so buckets order as the balances do and a decade splits in 90. `value` is an SQL expression of a
 * decimal String. Migration 11's views fill the ranked tables with this expression as it is today and
 * the reads (reads/ranked.ts) bound by it, so a change needs a migration that refills those tables.
 */
export function balanceBucket(value: string): string {
  return `toUInt16(length(${value}) * 100 + toUInt8OrZero(substring(${value}, 1, 2)))`;
}
