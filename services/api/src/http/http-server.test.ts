import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiServer } from './http-server.js';

const servers: { close(): unknown }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function listen(options: Parameters<typeof createApiServer>[1]) {
  const app = express();
  app.post('/echo', express.text(), (req, res) => void res.send(String(req.body)));
  app.get('/ok', (_req, res) => void res.send('ok'));
  const server = createApiServer(app, options).listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

/** Everything the server sends until it closes the connection. */
async function answerOf(socket: Socket): Promise<string> {
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  await once(socket, 'close');
  return text;
}

describe('the API server against slow senders', () => {
  it('closes a connection whose request head never completes with a 408', async () => {
    const port = await listen({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('GET /ok HTTP/1.1\r\nHost: x\r\n'); // the head's end never comes
    const answer = answerOf(socket);
    // The vitest timeout is the bound: Node's default would hold this socket for 60 s.
    expect(await answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a connection whose body trickles past the request timeout with a 408', async () => {
    const port = await listen({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('a'), 100);
    try {
      const answer = await answerOf(socket);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(trickle);
    }
  });

  it('answers a request that arrives in time', async () => {
    const port = await listen({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    const res = await fetch(`http://127.0.0.1:${port}/ok`);
    expect(await res.text()).toBe('ok');
  });
});
