/**
 * ed25519 keys for ADNL: the server key id, and the X25519 secret shared with a client's ephemeral
 * ed25519 key, computed with node:crypto.
 *
 * ADNL clients (`adnl` via `@noble/ed25519.getSharedSecret`, tonutils-go, the C++ node) do not use
 * separate X25519 keys; they map the ed25519 keys onto Curve25519:
 *  - public: the Montgomery u of the Edwards point, u = (1 + y) / (1 - y) mod p;
 *  - private: the clamped scalar ed25519 itself signs with, the first half of sha512(seed).
 * Node's X25519 KeyObjects take raw u and raw scalars (OpenSSL clamps on use), so the conversion is
 * all that is needed to get the same 32 bytes the client gets.
 */
import { createHash, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';

/** TL constructor id of `pub.ed25519 key:int256 = PublicKey`, little-endian. */
const PUB_ED25519_ID = Buffer.from([0xc6, 0xb4, 0x13, 0x48]);
/** DER headers that wrap a raw 32-byte key in PKCS#8 / SPKI (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const P = 2n ** 255n - 19n;

/** An ed25519 key pair as `generateKeyPairSync('ed25519')` returns it. */
export type Ed25519KeyPair = { publicKey: KeyObject; privateKey: KeyObject };

/** The server's keys in the forms the handshake needs. */
export type ServerKeys = {
  /** Raw 32-byte ed25519 public key (what goes into the global config). */
  publicKey: Buffer;
  /** sha256(pub.ed25519 TL id ‖ publicKey): the first 32 bytes of every handshake. */
  keyId: Buffer;
  /** The X25519 private key derived from the ed25519 seed. */
  x25519PrivateKey: KeyObject;
};

export function generateEd25519KeyPair(): Ed25519KeyPair {
  return generateKeyPairSync('ed25519');
}

/** Deterministic key pair from a 32-byte seed (a fixed localnet key survives restarts). */
export function ed25519KeyPairFromSeed(seed: Uint8Array): Ed25519KeyPair {
  if (seed.length !== 32) throw new RangeError(`ed25519 seed must be 32 bytes, got ${seed.length}`);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

export function rawEd25519PublicKey(key: KeyObject): Buffer {
  if (key.asymmetricKeyType !== 'ed25519') throw new TypeError(`expected an ed25519 key, got ${key.asymmetricKeyType ?? key.type}`);
  const x = key.export({ format: 'jwk' }).x;
  if (!x) throw new TypeError('ed25519 key exports no public part');
  return Buffer.from(x, 'base64url');
}

export function rawEd25519Seed(privateKey: KeyObject): Buffer {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw new TypeError(`expected an ed25519 private key, got ${privateKey.asymmetricKeyType ?? '?'} ${privateKey.type}`);
  }
  const d = privateKey.export({ format: 'jwk' }).d;
  if (!d) throw new TypeError('ed25519 private key exports no seed');
  return Buffer.from(d, 'base64url');
}

/** ADNL key id of an ed25519 public key: sha256 of its TL serialisation. */
export function adnlKeyId(publicKey: Uint8Array): Buffer {
  return createHash('sha256').update(PUB_ED25519_ID).update(publicKey).digest();
}

/** X25519 private key for an ed25519 seed: the (unclamped) first half of sha512(seed). */
export function x25519PrivateFromEd25519Seed(seed: Uint8Array): KeyObject {
  const scalar = createHash('sha512').update(seed).digest().subarray(0, 32);
  return createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, scalar]), format: 'der', type: 'pkcs8' });
}

/** Montgomery u (32 bytes LE) of an ed25519 public key; throws on keys that are not points of the curve's field. */
export function x25519PublicFromEd25519(publicKey: Uint8Array): Buffer {
  if (publicKey.length !== 32) throw new RangeError(`ed25519 public key must be 32 bytes, got ${publicKey.length}`);
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? publicKey[i] & 0x7f : publicKey[i]);
  if (y >= P) throw new RangeError('ed25519 public key: y is not reduced mod p');
  const denominator = mod(1n - y);
  if (denominator === 0n) throw new RangeError('ed25519 public key: y = 1 has no Montgomery form');
  const u = mod((1n + y) * modPow(denominator, P - 2n));
  const out = Buffer.alloc(32);
  let v = u;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** The secret `@noble/ed25519.getSharedSecret(peerSeed, publicKey)` computes on the other side. */
export function sharedSecret(x25519PrivateKey: KeyObject, peerEd25519PublicKey: Uint8Array): Buffer {
  const u = x25519PublicFromEd25519(peerEd25519PublicKey);
  const publicKey = createPublicKey({ key: Buffer.concat([SPKI_X25519_PREFIX, u]), format: 'der', type: 'spki' });
  return diffieHellman({ privateKey: x25519PrivateKey, publicKey });
}

export function serverKeys(keyPair: Ed25519KeyPair): ServerKeys {
  const publicKey = rawEd25519PublicKey(keyPair.publicKey);
  const seed = rawEd25519Seed(keyPair.privateKey);
  if (!rawEd25519PublicKey(createPublicKey(keyPair.privateKey)).equals(publicKey)) {
    throw new TypeError('keyPair.publicKey does not belong to keyPair.privateKey');
  }
  return { publicKey, keyId: adnlKeyId(publicKey), x25519PrivateKey: x25519PrivateFromEd25519Seed(seed) };
}

function mod(a: bigint): bigint {
  const r = a % P;
  return r < 0n ? r + P : r;
}

function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}
