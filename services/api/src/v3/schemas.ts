import { arr, B, component, dict, more, nullable, obj, OPEN, ref, S } from '../http/schema-kit.js';

/**
 * Response schemas every family shares (OpenAPI 3.0 components, named as toncenter's OpenAPI names
 * them): the error answer, `address_book` and `metadata`. Each family's own are in its schemas.ts;
 * components.ts lists them all for the document.
 */

export const ErrorSchema = component('Error', obj({ error: S, request_id: more(S, { description: 'with 500 and 503: the id under which the server logged the failure' }) }, ['request_id']));

/** Amounts by currency id (decimal strings). */
export const amounts = dict(S, { description: 'currency id -> amount (decimal string)' });

export const AddressBookRow = component('AddressBookRow', obj({
  user_friendly: nullable(S), domain: nullable(S),
  interfaces: nullable(arr(S, { description: 'null when the state has no code or its get-methods name no interface; [] for an address with no indexed state or a code without get-methods to match' })),
}));
export const AddressBook = component('AddressBook', dict(ref(AddressBookRow), { description: 'raw address -> AddressBookRow' }));
export const TokenInfo = component('TokenInfo', obj(
  { valid: B, type: S, name: S, symbol: S, description: S, image: S, nft_index: S, is_nsfw: B, is_scam: B, extra: OPEN },
  ['valid', 'type', 'name', 'symbol', 'description', 'image', 'nft_index', 'is_nsfw', 'is_scam', 'extra'],
));
export const AddressMetadata = component('AddressMetadata', obj({ is_indexed: B, token_info: arr(ref(TokenInfo)) }));
export const Metadata = component('Metadata', dict(ref(AddressMetadata), { description: 'raw address -> AddressMetadata (token contracts only)' }));
