import * as kinds from '../../http/kinds.js';
import type { Kind } from '../../http/kinds.js';
import { list } from '../../http/params.js';

/** A repeatable address parameter of the Jetton and NFT endpoints. */
export const ADDRS = (what: string) => list(kinds.address, `${what} (repeat the key).`);

/** `in`, `out` or `both` (toncenter's transfer direction; `both` is no filter). */
export type TransferDirection = 'in' | 'out' | 'both';
export const transferDirection: Kind<TransferDirection> = {
  accepts: 'in, out or both',
  schema: { type: 'string', enum: ['in', 'out', 'both'], example: 'in' },
  parse: (t) => (t === 'in' || t === 'out' || t === 'both' ? t : undefined),
};

/** An NFT index: decimal digits only (toncenter: `index should contain digits only`), at most 78 (uint256). */
export const nftIndex: Kind<string> = {
  accepts: 'decimal digits (an NFT index)',
  schema: { type: 'string', pattern: '^[0-9]{1,78}$', example: '5' },
  parse: (t) => (/^[0-9]{1,78}$/.test(t) ? t.replace(/^0+(?=.)/, '') : undefined),
};
