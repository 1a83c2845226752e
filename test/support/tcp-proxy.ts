import net from 'node:net';

// A loopback TCP proxy in front of a server (PostgreSQL, S3, Temporal), so a test can make that
// server unreachable for one service and bring it back, without stopping it for anyone else.

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  route(url: string): string;
  /** Drops every connection and refuses new ones (nothing listens on the port). */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(a);
      a.on('close', () => sockets.delete(a));
      a.on('error', () => b.destroy());
      a.pipe(b);
    }
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (server.listening) server.close(() => resolve());
      else resolve();
    });
  return {
    port,
    route(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut: stop,
    async restore() {
      await listen(port);
    },
    close: stop,
  };
}
