/**
 * ADNL-over-TCP handshake, server side. The client's first 256 bytes are
 *   key_id(32) ‖ client_ephemeral_ed25519_pub(32) ‖ sha256(params)(32) ‖ aes_ctr(params)(160)
 * where aes_ctr uses key = shared[0..16] ‖ hash[16..32], iv = hash[0..4] ‖ shared[20..32] and
 * `shared` is the X25519 secret of the server key and the client's ephemeral key. The 160 params
 * bytes then key both directions of the session.
 */
import { createCipheriv, createDecipheriv, createHash, type Cipher, type Decipher } from 'node:crypto';
import { sharedSecret, type ServerKeys } from './keys.js';
import { TonstreamError } from '@tonstream/errors';

export const HANDSHAKE_BYTES = 256;

export class HandshakeError extends TonstreamError {
  readonly code = 'ADNL_HANDSHAKE_FAILED';
}

/** The session's AES-256-CTR streams, as the server uses them. */
export type Session = {
  /** Decrypts client → server bytes (key params[32..64], iv params[80..96]). */
  decipher: Decipher;
  /** Encrypts server → client bytes (key params[0..32], iv params[64..80]). */
  cipher: Cipher;
  /** The client's ephemeral ed25519 public key. */
  clientPublicKey: Buffer;
};

export function acceptHandshake(packet: Buffer, keys: ServerKeys): Session {
  if (packet.length !== HANDSHAKE_BYTES) throw new HandshakeError(`handshake is ${packet.length} bytes, expected ${HANDSHAKE_BYTES}`);
  const keyId = packet.subarray(0, 32);
  if (!keyId.equals(keys.keyId)) {
    throw new HandshakeError(`handshake for key id ${keyId.toString('hex')}, this server is ${keys.keyId.toString('hex')}`);
  }
  const clientPublicKey = Buffer.from(packet.subarray(32, 64));
  const hash = packet.subarray(64, 96);
  let shared: Buffer;
  try {
    shared = sharedSecret(keys.x25519PrivateKey, clientPublicKey);
  } catch (cause) {
    throw new HandshakeError(`handshake: unusable client key ${clientPublicKey.toString('hex')}`, { cause });
  }
  const key = Buffer.concat([shared.subarray(0, 16), hash.subarray(16, 32)]);
  const iv = Buffer.concat([hash.subarray(0, 4), shared.subarray(20, 32)]);
  const handshakeDecipher = createDecipheriv('aes-256-ctr', key, iv);
  const params = Buffer.concat([handshakeDecipher.update(packet.subarray(96)), handshakeDecipher.final()]);
  if (!createHash('sha256').update(params).digest().equals(hash)) {
    // Either a corrupted packet or a client deriving a different shared secret.
    throw new HandshakeError('handshake params checksum mismatch (shared secret differs)');
  }
  return {
    decipher: createDecipheriv('aes-256-ctr', params.subarray(32, 64), params.subarray(80, 96)),
    cipher: createCipheriv('aes-256-ctr', params.subarray(0, 32), params.subarray(64, 80)),
    clientPublicKey,
  };
}

/** Client side of the same handshake, for our tests and benchmark client. */
export type ClientHandshake = { packet: Buffer; decipher: Decipher; cipher: Cipher };

export function buildHandshake(
  serverKeyId: Uint8Array,
  clientPublicKey: Uint8Array,
  shared: Uint8Array,
  params: Buffer,
): ClientHandshake {
  if (params.length !== 160) throw new RangeError(`handshake params must be 160 bytes, got ${params.length}`);
  const hash = createHash('sha256').update(params).digest();
  const key = Buffer.concat([shared.subarray(0, 16), hash.subarray(16, 32)]);
  const iv = Buffer.concat([hash.subarray(0, 4), shared.subarray(20, 32)]);
  const c = createCipheriv('aes-256-ctr', key, iv);
  const encrypted = Buffer.concat([c.update(params), c.final()]);
  return {
    packet: Buffer.concat([serverKeyId, clientPublicKey, hash, encrypted]),
    cipher: createCipheriv('aes-256-ctr', params.subarray(32, 64), params.subarray(80, 96)),
    decipher: createDecipheriv('aes-256-ctr', params.subarray(0, 32), params.subarray(64, 80)),
  };
}
