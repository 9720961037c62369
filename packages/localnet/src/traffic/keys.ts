import { createPrivateKey, createPublicKey, hash as oneShotHash, type KeyObject, sign } from 'node:crypto';

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export type KeyPair = { privateKey: KeyObject; publicKey: Buffer };

/** An Ed25519 key pair from a label, with node:crypto (tweetnacl signs ~100x slower). */
export function keyPairFromLabel(label: string): KeyPair {
  const seed = oneShotHash('sha256', `tonstream-localnet:key:${label}`, 'buffer');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { privateKey, publicKey: Buffer.from(spki.subarray(spki.length - 32)) };
}

/** Ed25519 signature of `data` (TON wallets sign the 32-byte hash of the signing cell). */
export function signBytes(keys: KeyPair, data: Uint8Array): Buffer {
  return sign(null, data, keys.privateKey);
}
