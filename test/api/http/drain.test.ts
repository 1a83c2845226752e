import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainable } from '../../../api/http/drain.ts';

// The drain a rolling restart's SIGTERM starts (api/http/drain.ts), on a bare http.Server and raw
// keep-alive connections, so what each connection sees is exact: a request sent on a connection
// that was idle when the drain began is answered, not reset.

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.closeAllConnections();
});

/** A server answering 200 `ok`, after `?wait=ms` if asked; and its drain. */
async function serve(keepAliveTimeout?: number) {
  const server = http.createServer((req, res) => {
    const wait = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('wait') ?? 0);
    setTimeout(() => res.end('ok'), wait);
  });
  if (keepAliveTimeout !== undefined) server.keepAliveTimeout = keepAliveTimeout;
  const drain = drainable(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { server, port: (server.address() as net.AddressInfo).port, drain };
}

/** One raw keep-alive connection: `send` writes a request and resolves with the response head and body, or the socket's error. */
async function connection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  let waiting: ((r: { status: number; headers: string; body: string } | { error: string }) => void) | undefined;
  const closed = new Promise<string>((resolve) => {
    socket.on('error', (err: NodeJS.ErrnoException) => {
      waiting?.({ error: err.code ?? err.message });
      resolve(err.code ?? 'error');
    });
    socket.on('close', () => {
      waiting?.({ error: 'closed' });
      resolve('closed');
    });
  });
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    const end = received.indexOf('\r\n\r\n');
    const length = /content-length: (\d+)/i.exec(received)?.[1];
    if (end < 0 || length === undefined || received.length < end + 4 + Number(length)) return;
    const head = received.slice(0, end);
    const body = received.slice(end + 4, end + 4 + Number(length));
    received = received.slice(end + 4 + Number(length));
    const done = waiting;
    waiting = undefined;
    done?.({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
  });
  return {
    closed,
    send: (path = '/') =>
      new Promise<{ status: number; headers: string; body: string } | { error: string }>((resolve) => {
        if (socket.destroyed) return resolve({ error: 'closed' });
        waiting = resolve;
        socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`);
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('drainable', () => {
  it('answers, with Connection: close, a request sent well into the drain on a connection idle since before it', async () => {
    const { port, drain } = await serve();
    const c = await connection(port);
    expect(await c.send()).toMatchObject({ status: 200, body: 'ok' });
    const drained = drain(10_000);
    // Past the second after which stop 37's drain closed idle connections (and so reset this request).
    await sleep(1_500);
    const answer = await c.send();
    expect(answer).toMatchObject({ status: 200, body: 'ok' });
    expect((answer as { headers: string }).headers).toContain('connection: close');
    expect(await c.closed).toBe('closed');
    await drained;
  });

  it('refuses new connections at once, and lets a request in flight finish with Connection: close', async () => {
    const { port, drain } = await serve();
    const c = await connection(port);
    const inFlight = c.send('/?wait=300');
    await sleep(50);
    const drained = drain(10_000);
    await expect(connection(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const answer = await inFlight;
    expect(answer).toMatchObject({ status: 200, body: 'ok' });
    expect((answer as { headers: string }).headers).toContain('connection: close');
    await drained;
  });

  it('closes a connection left idle past the keep-alive timeout, so the drain ends without waiting for the grace', async () => {
    const { server, port, drain } = await serve(200);
    let cut = false;
    const closeAll = server.closeAllConnections.bind(server);
    server.closeAllConnections = () => {
      cut = true;
      closeAll();
    };
    const used = await connection(port);
    expect(await used.send()).toMatchObject({ status: 200 });
    const unused = await connection(port); // opened, never sent a request
    await drain(20_000);
    expect(cut).toBe(false); // ended by the idle sweep, not by the grace
    expect(await used.closed).toBe('closed');
    expect(await unused.closed).toBe('closed');
  });

  it('cuts a request still running when the grace runs out', async () => {
    const { port, drain } = await serve();
    const c = await connection(port);
    const hung = c.send('/?wait=60000');
    await sleep(50);
    await drain(300);
    expect(await hung).toEqual({ error: 'closed' });
  });
});
