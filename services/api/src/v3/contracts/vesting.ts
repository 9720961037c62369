import { readVestingContracts } from '@tonstream/store';
import { HttpError } from '../../http/http-error.js';
import { buildAddressBook } from '../address-book.js';
import { toVesting } from './objects.js';
import { defineEndpoint } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { limit, list, offset, withDefault } from '../../http/params.js';
import { ref } from '../../http/schema-kit.js';
import { VestingResponse } from './schemas.js';

/** `/vesting` (docs/toncenter-v3.md §2.7): vesting wallets from `vesting_contracts` (migration 13). */
export const vestingEndpoint = defineEndpoint({
  path: '/vesting',
  operationId: 'getVestingContracts',
  summary: 'Vesting wallets by address or by owner / sender',
  description: 'Exactly one of contract_address or wallet_address. Ordered by address.',
  tag: 'vesting',
  params: {
    contract_address: list(kinds.address, 'Vesting wallet addresses (repeat the key).'),
    wallet_address: list(kinds.address, 'Owners or senders (repeat the key).'),
    check_whitelist: withDefault(kinds.bool, false, 'With wallet_address, also wallets where it is whitelisted; default false.'),
    limit: limit(),
    offset: offset(),
  },
  response: ref(VestingResponse),
  async handle(ctx) {
    const p = ctx.params;
    if (!p.contract_address === !p.wallet_address) throw new HttpError(422, 'exactly one of contract_address or wallet_address is required');
    const rows = await readVestingContracts(ctx.store, ctx.scope, { address: p.contract_address, wallet: p.wallet_address, whitelisted: p.check_whitelist }, { limit: p.limit, offset: p.offset });
    const vesting_contracts = rows.map(toVesting);
    const addresses = vesting_contracts.flatMap((v) => [v.address, v.owner_address, v.sender_address, ...v.whitelist]);
    const address_book = ctx.settings.noAddressBook ? {} : await buildAddressBook(ctx.store, ctx.scope, addresses, ctx.testnet);
    return { vesting_contracts, address_book };
  },
});
