import { message } from '../layout.js';
import { dnsRecord } from '../tlb/dns-record.js';
import { bigUint, bits, ref } from '../tlb/primitives.js';

/*
 * TON DNS (TEP-81 records; the .ton DNS collection and items of ton-blockchain/dns-contract), as
 * ton-marker's scheme writes them. `change_dns_record` without a value ref is `delete_dns_record`.
 */

export const changeDnsRecord = message('change_dns_record', 0x4eb1f0f9, { query_id: bigUint(64), key: bits(256), value: ref(dnsRecord) });

export const deleteDnsRecord = message('delete_dns_record', 0x4eb1f0f9, { query_id: bigUint(64), key: bits(256) });

export const dnsBalanceRelease = message('dns_balance_release', 0x4ed14b65, { query_id: bigUint(64) });

export const processGovernanceDecision = message('process_governance_decision', 0x44beae41, { query_id: bigUint(64) });

export const auctionFillUp = message('auction_fill_up', 0x370fec51, { query_id: bigUint(64) });

export const outbidNotification = message('outbid_notification', 0x557cea20, { query_id: bigUint(64) });

export const DNS_MESSAGES = [changeDnsRecord, deleteDnsRecord, dnsBalanceRelease, processGovernanceDecision, auctionFillUp, outbidNotification] as const;
