import { describe, expect, it } from 'vitest';
import { metadataOfEach, type AddressMetadata } from './token-metadata.js';

const WALLET = `0:${'AA'.repeat(32)}`;
const MASTER = `0:${'CC'.repeat(32)}`;
const ITEM = `0:${'EE'.repeat(32)}`;
const OWNER = `0:${'BB'.repeat(32)}`;

describe('metadataOfEach()', () => {
  it('each address brings its own entry, a Jetton wallet its master too, a non-token nothing', () => {
    const master: AddressMetadata = { is_indexed: true, token_info: [{ valid: true, type: 'jetton_masters', name: 'Coin' }] };
    const wallet: AddressMetadata = { is_indexed: true, token_info: [{ valid: true, type: 'jetton_wallets', extra: { owner: OWNER, jetton: MASTER, balance: '5' } }] };
    const item: AddressMetadata = { is_indexed: false, token_info: [{ type: 'nft_items', nft_index: '3' }] };
    const each = metadataOfEach({ [MASTER]: master, [WALLET]: wallet, [ITEM]: item }, [WALLET, ITEM, OWNER]);
    expect(each.get(WALLET)).toEqual({ [WALLET]: wallet, [MASTER]: master });
    expect(each.get(ITEM)).toEqual({ [ITEM]: item });
    expect(each.get(OWNER)).toEqual({});
    expect(each.has(MASTER)).toBe(false);
  });
});
