/**
 * One ADNL-over-TCP client connection: handshake, then decrypted frames carrying tcp.ping or
 * adnl.message.query, answered out of order as handlers finish. A bad handshake, a bad frame or
 * an unparsable message closes this connection only.
 */
import type { Socket } from 'node:net';
import type { Dispatch } from './dispatch.js';
import { ErrorCode } from './errors.js';
import { FrameDecoder, FrameError, encodeFrame } from './frame.js';
import { HANDSHAKE_BYTES, HandshakeError, acceptHandshake, type Session } from './handshake.js';
import type { ServerKeys } from './keys.js';
import type { LiteServerLogger } from './logger.js';
import { ID, encodeError } from './schema.js';
import { TlReader, TlWriter } from './tl-buffer.js';
import { TonstreamError } from '@tonstream/errors';

/** A client that connects but sends no handshake is dropped after this long. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

export type ConnectionContext = {
  keys: ServerKeys;
  dispatch: Dispatch;
  logger: LiteServerLogger;
};

export function serveConnection(socket: Socket, ctx: ConnectionContext): void {
  const { logger } = ctx;
  const remote = `${socket.remoteAddress}:${socket.remotePort}`;
  let session: Session | undefined;
  let handshakeChunks: Buffer[] = [];
  let handshakeBytes = 0;
  const frames = new FrameDecoder();
  let closed = false;

  socket.setNoDelay(true);
  const handshakeTimer = setTimeout(() => drop('no handshake', { timeout_ms: HANDSHAKE_TIMEOUT_MS }), HANDSHAKE_TIMEOUT_MS);
  handshakeTimer.unref();

  socket.on('data', (chunk: Buffer) => {
    try {
      if (session) {
        onPlaintext(session.decipher.update(chunk));
        return;
      }
      handshakeChunks.push(chunk);
      handshakeBytes += chunk.length;
      if (handshakeBytes < HANDSHAKE_BYTES) return;
      const all = Buffer.concat(handshakeChunks, handshakeBytes);
      handshakeChunks = [];
      clearTimeout(handshakeTimer);
      session = acceptHandshake(all.subarray(0, HANDSHAKE_BYTES), ctx.keys);
      send(Buffer.alloc(0)); // an empty packet confirms the handshake
      logger.debug('liteserver client connected', { remote });
      if (all.length > HANDSHAKE_BYTES) onPlaintext(session.decipher.update(all.subarray(HANDSHAKE_BYTES)));
    } catch (e) {
      if (e instanceof FrameError || e instanceof HandshakeError || e instanceof ProtocolError) drop(e.message);
      else drop(`unexpected: ${(e as Error).message}`);
    }
  });
  socket.on('error', (e) => logger.debug('liteserver socket error', { remote, error: e.message }));
  socket.on('close', () => {
    closed = true;
    clearTimeout(handshakeTimer);
  });

  function drop(reason: string, fields: Record<string, unknown> = {}): void {
    if (closed) return;
    closed = true;
    logger.warn('liteserver dropped connection', { remote, reason, ...fields });
    socket.destroy();
  }

  function send(payload: Uint8Array): void {
    if (closed || !session) return;
    socket.write(session.cipher.update(encodeFrame(payload)));
  }

  function onPlaintext(plain: Buffer): void {
    for (const payload of frames.push(plain)) onMessage(payload);
  }

  function onMessage(payload: Buffer): void {
    if (payload.length === 0) return; // an empty packet carries nothing; some clients use it as keepalive
    if (payload.length < 4) throw new ProtocolError(`message of ${payload.length} bytes`);
    const reader = new TlReader(payload);
    const id = reader.readInt32();
    if (id === ID.adnlMessageQuery) {
      let queryId: Buffer;
      let query: Buffer;
      try {
        queryId = Buffer.from(reader.readInt256());
        query = reader.readBuffer();
      } catch (e) {
        throw new ProtocolError(`malformed adnl.message.query: ${(e as Error).message}`);
      }
      ctx
        .dispatch(query)
        .then((answer) => {
          let packet: Buffer;
          try {
            packet = encodeAnswer(queryId, answer);
          } catch (e) {
            packet = encodeAnswer(queryId, encodeError(ErrorCode.error, `answer does not fit an ADNL packet: ${(e as Error).message}`));
          }
          send(packet);
        })
        .catch((e: Error) => logger.error('liteserver dispatch failed', { remote, error: e.message }));
    } else if (id === ID.tcpPing) {
      // tcp.ping random_id:long = tcp.Pong; answered with the same random_id
      if (payload.length < 12) throw new ProtocolError('truncated tcp.ping');
      const pong = Buffer.allocUnsafe(12);
      pong.writeInt32LE(ID.tcpPong, 0);
      payload.copy(pong, 4, 4, 12);
      send(pong);
    } else {
      logger.debug('liteserver ignored message', { remote, constructor: (id >>> 0).toString(16) });
    }
  }
}

class ProtocolError extends TonstreamError {
  readonly code = 'ADNL_PROTOCOL';
}

/** adnl.message.answer query_id:int256 answer:bytes */
function encodeAnswer(queryId: Buffer, answer: Uint8Array): Buffer {
  const writer = new TlWriter(answer.length + 48);
  writer.writeInt32(ID.adnlMessageAnswer);
  writer.writeInt256(queryId);
  writer.writeBuffer(answer);
  return writer.build();
}
