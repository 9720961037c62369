import type { Kind } from '../../http/kinds.js';

/** Labels of TON DNS names: .ton names take a-z, 0-9 and '-', t.me usernames '_' too. */
const DOMAIN = /^[a-z0-9_-]{1,126}(\.[a-z0-9_-]{1,126})*$/;

/**
 * A DNS domain as `/dns/records` takes it (`foo.ton`, `bar.t.me`): dot-separated labels of letters,
 * digits, '-' and '_', at most 255 characters; lower-cased, as TON DNS names are (TEP-81 resolvers
 * compare lower case). Other text cannot name a stored domain, so it is refused rather than looked up.
 */
export const dnsDomain: Kind<string> = {
  accepts: 'a domain name such as foo.ton (letters, digits, - and _ in dot-separated labels, at most 255 characters)',
  schema: { type: 'string', maxLength: 255, pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$', example: 'foundation.ton' },
  parse: (t) => {
    const lower = t.toLowerCase();
    return t.length <= 255 && DOMAIN.test(lower) ? lower : undefined;
  },
};
