import dns from 'node:dns';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpsSource } from '../../../domain/connectivity/sources/https-source.ts';
import { checkAddressLiteral, requestOutbound } from '../../../domain/connectivity/sources/outbound.ts';
import { postgresSource } from '../../../domain/connectivity/sources/postgres-source.ts';
import { s3Source } from '../../../domain/connectivity/sources/s3-source.ts';

// The one rule for where sources and writeback webhooks may connect: non-public addresses are
// refused, written as addresses or answered by DNS at the moment each socket connects (so a name
// that rebinds to loopback between a check and the connection cannot pass), unless the operator
// allows private networks. A TCP listener on loopback counts what reaches it.

let listener: net.Server;
let port: number;
let reached = 0;

beforeAll(async () => {
  listener = net.createServer((socket) => {
    reached++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
});
afterAll(() => listener?.close());
afterEach(() => {
  vi.restoreAllMocks();
  reached = 0;
});

/**
 * A name that answers a public address to a lookup made without the connection (a pre-check,
 * dns.promises) and 127.0.0.1 to the lookup of the connection itself: DNS rebinding.
 */
function rebinding() {
  vi.spyOn(dns.promises, 'lookup').mockResolvedValue([{ address: '93.184.216.34', family: 4 }] as never);
  const real = dns.lookup;
  vi.spyOn(dns, 'lookup').mockImplementation(((host: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    if (host !== 'rebind.svc.test') return (real as (...a: unknown[]) => void)(host, options, callback);
    const answer = [{ address: '127.0.0.1', family: 4 }];
    if (options.all) callback(null, answer);
    else callback(null, answer[0]!.address, 4);
  }) as never);
}

describe('the outbound address rule', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '[::1]',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
  ])('refuses the address %s', (host) => {
    expect(() => checkAddressLiteral(host, false)).toThrow(
      expect.objectContaining({ code: 'connection_address_refused', details: { host } }),
    );
  });

  it('admits public addresses, and everything when private networks are allowed', () => {
    expect(() => checkAddressLiteral('8.8.8.8', false)).not.toThrow();
    expect(() => checkAddressLiteral('2606:4700:4700::1111', false)).not.toThrow();
    expect(() => checkAddressLiteral('127.0.0.1', true)).not.toThrow();
  });

  it('reaches endpoints over https only unless private networks are allowed', async () => {
    const reader = httpsSource('http://example.com/orders', undefined, { privateNetworks: false });
    await expect(reader.probe()).rejects.toMatchObject({ code: 'connection_address_refused' });
  });

  it('refuses a name that resolves to loopback at connect time, for HTTPS, PostgreSQL and S3, and nothing reaches the listener', async () => {
    rebinding();
    const opts = { privateNetworks: false };
    const https = httpsSource(`https://rebind.svc.test:${port}/orders`, undefined, opts);
    await expect(https.probe()).rejects.toMatchObject({ code: 'connection_address_refused', details: { host: 'rebind.svc.test' } });
    const pg = postgresSource(`postgres://reader:secret@rebind.svc.test:${port}/shop`, opts);
    await expect(pg.probe()).rejects.toMatchObject({ code: 'connection_address_refused', details: { host: 'rebind.svc.test' } });
    await pg.close();
    const s3 = s3Source(
      { bucket: 'b', prefix: '', region: 'us-east-1', endpoint: `https://rebind.svc.test:${port}`, accessKeyId: 'AKIAREBINDTEST' },
      'not-a-real-secret',
      opts,
    );
    await expect(s3.probe()).rejects.toMatchObject({ code: 'connection_address_refused', details: { host: 'rebind.svc.test' } });
    await s3.close();
    await expect(
      requestOutbound(`https://rebind.svc.test:${port}/hook`, {
        method: 'POST',
        headers: {},
        body: '{}',
        timeoutMs: 5000,
        maxBytes: 1024,
        privateNetworks: false,
      }),
    ).rejects.toMatchObject({ code: 'connection_address_refused' });
    expect(reached).toBe(0);
  });

  it('connects to that address when private networks are allowed (the same lookup, admitting it)', async () => {
    rebinding();
    const pg = postgresSource(`postgres://reader:secret@rebind.svc.test:${port}/shop`, { privateNetworks: true });
    await expect(pg.probe()).rejects.not.toMatchObject({ code: 'connection_address_refused' });
    await pg.close();
    expect(reached).toBe(1);
  });
});
