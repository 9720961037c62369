import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  adnlKeyId,
  ed25519KeyPairFromSeed,
  generateEd25519KeyPair,
  rawEd25519PublicKey,
  rawEd25519Seed,
  serverKeys,
  sharedSecret,
  x25519PrivateFromEd25519Seed,
  x25519PublicFromEd25519,
} from './keys.js';

// RFC 8032 section 7.1, TEST 1.
const RFC_SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
const RFC_PUBLIC = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex');

describe('keys', () => {
  it('ed25519KeyPairFromSeed() reproduces the RFC 8032 public key', () => {
    const pair = ed25519KeyPairFromSeed(RFC_SEED);
    expect(rawEd25519PublicKey(pair.publicKey)).toEqual(RFC_PUBLIC);
    expect(rawEd25519Seed(pair.privateKey)).toEqual(RFC_SEED);
  });

  it('x25519PublicFromEd25519() is the X25519 public key of the scalar from sha512(seed)', () => {
    // Montgomery u of the Edwards point must equal scalar·base computed by OpenSSL's X25519.
    for (let i = 0; i < 20; i++) {
      const pair = generateEd25519KeyPair();
      const fromPoint = x25519PublicFromEd25519(rawEd25519PublicKey(pair.publicKey));
      const fromScalar = Buffer.from(createPublicKey(x25519PrivateFromEd25519Seed(rawEd25519Seed(pair.privateKey))).export({ format: 'jwk' }).x!, 'base64url');
      expect(fromPoint).toEqual(fromScalar);
    }
  });

  it('sharedSecret() agrees from both sides', () => {
    const a = generateEd25519KeyPair();
    const b = generateEd25519KeyPair();
    const ab = sharedSecret(x25519PrivateFromEd25519Seed(rawEd25519Seed(a.privateKey)), rawEd25519PublicKey(b.publicKey));
    const ba = sharedSecret(x25519PrivateFromEd25519Seed(rawEd25519Seed(b.privateKey)), rawEd25519PublicKey(a.publicKey));
    expect(ab).toEqual(ba);
    expect(ab.length).toBe(32);
  });

  it('x25519PublicFromEd25519() rejects y = 1 and unreduced y', () => {
    const one = Buffer.alloc(32);
    one[0] = 1;
    expect(() => x25519PublicFromEd25519(one)).toThrow(/y = 1/);
    expect(() => x25519PublicFromEd25519(Buffer.alloc(32, 0xff))).toThrow(/not reduced/);
  });

  it('serverKeys() derives the ADNL key id and refuses a mismatched pair', () => {
    const pair = ed25519KeyPairFromSeed(RFC_SEED);
    const keys = serverKeys(pair);
    expect(keys.keyId).toEqual(adnlKeyId(RFC_PUBLIC));
    expect(keys.keyId.toString('hex')).not.toBe(RFC_PUBLIC.toString('hex'));
    expect(() => serverKeys({ privateKey: pair.privateKey, publicKey: generateEd25519KeyPair().publicKey })).toThrow(/does not belong/);
  });
});
