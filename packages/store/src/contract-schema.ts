/** The tables `writeBatch` fills from account states (their lookups are filled by views). */
export const CONTRACT_TABLES = ['dns_entries', 'multisig_wallets', 'multisig_orders', 'vesting_contracts', 'nft_sales'] as const;
