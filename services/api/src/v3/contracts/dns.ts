import { readDnsEntries } from '@tonstream/store';
import { HttpError } from '../../http/http-error.js';
import { buildAddressBook } from '../address-book.js';
import { toDnsRecord } from './objects.js';
import { dnsDomain } from './params.js';
import { defineEndpoint } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { limit, offset, optional } from '../../http/params.js';
import { ref } from '../../http/schema-kit.js';
import { DNSRecordsResponse } from './schemas.js';

/** `/dns/records` (docs/toncenter-v3.md §2.5): .ton DNS items' records, read from `dns_entries` (migration 13). */
export const dnsRecordsEndpoint = defineEndpoint({
  path: '/dns/records',
  operationId: 'getDnsRecords',
  summary: 'DNS records by wallet or domain',
  description: 'Exactly one of wallet or domain. Ordered by domain length, then domain.',
  tag: 'dns',
  params: {
    wallet: optional(kinds.address, 'Records whose wallet record (dns_wallet) is this address.'),
    domain: optional(dnsDomain, 'An exact domain, e.g. foo.ton.'),
    // toncenter's docs and code agree on 100 here.
    limit: limit(100),
    offset: offset(),
  },
  response: ref(DNSRecordsResponse),
  async handle(ctx) {
    const p = ctx.params;
    if (p.wallet === undefined && p.domain === undefined) throw new HttpError(422, 'either wallet address or domain is required');
    if (p.wallet !== undefined && p.domain !== undefined) throw new HttpError(422, 'provide either wallet address or domain, not both');
    const rows = await readDnsEntries(ctx.store, ctx.scope, { wallet: p.wallet, domain: p.domain }, { limit: p.limit, offset: p.offset });
    const records = rows.map(toDnsRecord);
    const address_book = ctx.settings.noAddressBook ? {} : await buildAddressBook(ctx.store, ctx.scope, records.flatMap((r) => [r.nft_item_address, r.nft_item_owner, r.dns_wallet, r.dns_next_resolver]), ctx.testnet);
    return { records, address_book };
  },
});
