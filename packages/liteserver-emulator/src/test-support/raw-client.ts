/**
 * A minimal ADNL-over-TCP client on node:crypto, for tests and the benchmark: it can send what
 * ton-lite-client never sends (tcp.ping, corrupt frames, raw TL) and is fast enough that the
 * benchmark measures the server rather than a pure-JS AES. Not part of the package API.
 */
import { randomBytes, type Cipher, type Decipher } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { FrameDecoder, encodeFrame } from '../frame.js';
import { buildHandshake } from '../handshake.js';
import { adnlKeyId, generateEd25519KeyPair, rawEd25519PublicKey, rawEd25519Seed, sharedSecret, x25519PrivateFromEd25519Seed } from '../keys.js';
import { ID } from '../schema.js';
import { TlReader, TlWriter } from '../tl-buffer.js';

export type RawClient = {
  /** Send a TL function call wrapped in liteServer.query + adnl.message.query; resolves with the boxed answer. */
  query(call: Uint8Array): Promise<Buffer>;
  /** tcp.ping; resolves with the random_id echoed in tcp.pong. */
  ping(randomId: bigint): Promise<bigint>;
  /** Encrypt and send arbitrary plaintext bytes (a hand-made frame). */
  sendPlain(bytes: Uint8Array): void;
  /** Resolves when the server closes the connection. */
  closed: Promise<void>;
  close(): void;
};

export async function connectRawClient(host: string, port: number, serverPublicKey: Uint8Array): Promise<RawClient> {
  const eph = generateEd25519KeyPair();
  const shared = sharedSecret(x25519PrivateFromEd25519Seed(rawEd25519Seed(eph.privateKey)), serverPublicKey);
  const hs = buildHandshake(adnlKeyId(serverPublicKey), rawEd25519PublicKey(eph.publicKey), shared, randomBytes(160));
  const socket: Socket = connect(port, host);
  socket.setNoDelay(true);
  const cipher: Cipher = hs.cipher;
  const decipher: Decipher = hs.decipher;
  const frames = new FrameDecoder();
  const pending = new Map<string, (answer: Buffer) => void>();
  const pings: ((id: bigint) => void)[] = [];
  let ready!: () => void;
  let failed!: (e: Error) => void;
  const handshakeDone = new Promise<void>((resolve, reject) => ((ready = resolve), (failed = reject)));
  let confirmed = false;
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', (e) => failed(e));
  closed.then(() => failed(new Error('closed before handshake')));

  socket.on('connect', () => socket.write(hs.packet));
  socket.on('data', (chunk: Buffer) => {
    for (const payload of frames.push(decipher.update(chunk))) {
      if (!confirmed) {
        confirmed = true;
        if (payload.length === 0) ready();
        else failed(new Error('handshake not confirmed by an empty packet'));
        continue;
      }
      const r = new TlReader(payload);
      const id = r.readInt32();
      if (id === ID.adnlMessageAnswer) {
        const queryId = r.readInt256().toString('hex');
        const answer = r.readBuffer();
        pending.get(queryId)?.(answer);
        pending.delete(queryId);
      } else if (id === ID.tcpPong) {
        pings.shift()?.(BigInt(r.readInt64()));
      }
    }
  });
  await handshakeDone;

  const sendPlain = (bytes: Uint8Array) => socket.write(cipher.update(bytes));
  return {
    query(call) {
      const queryId = randomBytes(32);
      const inner = new TlWriter(call.length + 16);
      inner.writeInt32(ID.liteServerQuery);
      inner.writeBuffer(call);
      const outer = new TlWriter(call.length + 64);
      outer.writeInt32(ID.adnlMessageQuery);
      outer.writeInt256(queryId);
      outer.writeBuffer(inner.build());
      return new Promise((resolve) => {
        pending.set(queryId.toString('hex'), resolve);
        sendPlain(encodeFrame(outer.build()));
      });
    },
    ping(randomId) {
      const w = new TlWriter(12);
      w.writeInt32(ID.tcpPing);
      w.writeInt64(randomId.toString());
      return new Promise((resolve) => {
        pings.push(resolve);
        sendPlain(encodeFrame(w.build()));
      });
    },
    sendPlain,
    closed,
    close: () => socket.destroy(),
  };
}
