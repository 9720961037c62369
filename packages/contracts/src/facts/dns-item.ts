import { type DnsItemData, readDnsItemData } from '../interfaces/dns-data.js';
import type { Standard } from './standard.js';

/** TEP-81 DNS item (an NFT item that resolves): domain, owner and its records. */
export const dnsItem: Standard<DnsItemData> = {
  has: (code) => code.interfaces.includes('dns') && code.interfaces.includes('nft_item'),
  read: (data) => (data ? readDnsItemData(data) : null),
};
