import { Address } from '@ton/core';

/** Any address form (friendly base64/base64url, bounceable or not, raw `wc:hex` in any case) -> raw `<wc>:<64 UPPERHEX>`, or null. */
export function normalizeAddress(text: string): string | null {
  const s = text.trim();
  if (s.length === 0 || s.length > 100) return null;
  try {
    const a = Address.parse(s);
    return `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;
  } catch {
    return null;
  }
}

/**
 * A trace's normalized external hash in the spelling the server emits (standard base64, padded).
 * toncenter compares these verbatim; accepting hex and base64url too is the reference's "safe
 * improvement" (§11.3). Anything that is not 32 bytes is kept as given: it simply matches nothing.
 */
export function normalizeTraceHash(text: string): string {
  const s = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex').toString('base64');
  if (/^[A-Za-z0-9_-]{43}=?$/.test(s)) return Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('base64');
  return s;
}

/** The user-friendly form toncenter's address book shows (bounceable unless the account is not active). */
export function userFriendly(raw: string, bounceable: boolean): string {
  return Address.parseRaw(raw).toString({ bounceable, urlSafe: true });
}
