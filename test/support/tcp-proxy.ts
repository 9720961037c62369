import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy on 127.0.0.1 in front of a server (ClickHouse), to take it "down" for a process under test and back. */
export type TcpProxy = {
  port: number;
  /** Down: open connections are cut and new ones closed at once (the client sees resets); up: forwarded again. */
  setDown(down: boolean): void;
  close(): Promise<void>;
};

export async function startTcpProxy(target: URL): Promise<TcpProxy> {
  let down = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(Number(target.port || 80), target.hostname);
    const close = () => {
      for (const s of [client, upstream]) {
        s.destroy();
        sockets.delete(s);
      }
    };
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', close).on('close', close);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    setDown(value) {
      down = value;
      if (value) for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
