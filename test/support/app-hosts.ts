import net from 'node:net';
import { expect } from 'vitest';
import type { Clock } from '../../domain/deps.ts';
import { type RawResponse, rawGet } from './hosting.ts';
import { startTestService, type TestService } from './service.ts';

// The service with its page bases on hosts of their own (`*.localhost`, which browsers resolve to
// loopback), and a browserless client that sends every request to the one loopback server with
// the Host of its address, keeping cookies per host as a browser does.

export async function startWithAppHosts(clock?: Clock): Promise<TestService> {
  // The bases name the port, so it is chosen before the service starts.
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  return startTestService({
    env: {
      PORT: String(port),
      SVC_BASE_URL: `http://127.0.0.1:${port}`,
      SVC_PRODUCTION_BASE: `http://apps.localhost:${port}`,
      SVC_DEVELOPER_BASE: `http://test.localhost:${port}/d`,
    },
    ...(clock ? { clock } : {}),
  });
}

export class Client {
  readonly jar = new Map<string, Map<string, string>>();
  readonly #svc: TestService;

  constructor(svc: TestService) {
    this.#svc = svc;
  }

  cookie(host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name);
  }

  setCookie(host: string, pair: string): void {
    const eq = pair.indexOf('=');
    const cookies = this.jar.get(host) ?? new Map<string, string>();
    this.jar.set(host, cookies);
    if (/;\s*Max-Age=0(;|$)/i.test(pair)) cookies.delete(pair.slice(0, eq));
    else cookies.set(pair.slice(0, eq), pair.slice(eq + 1).split(';')[0]!);
  }

  async get(address: string, method = 'GET'): Promise<RawResponse & { url: string }> {
    const url = new URL(address);
    const cookie = [...(this.jar.get(url.host) ?? [])].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await rawGet(`${this.#svc.url}${url.pathname}${url.search}`, { host: url.host, ...(cookie ? { cookie } : {}) }, method);
    for (const c of res.headers['set-cookie'] ?? []) this.setCookie(url.host, c);
    return { ...res, url: address };
  }

  /** Follows redirects by hand; every answer on the way, the last one not a redirect (or the limit reached). */
  async follow(address: string, limit = 8): Promise<(RawResponse & { url: string })[]> {
    const hops = [await this.get(address)];
    while (hops.at(-1)!.status >= 300 && hops.at(-1)!.status < 400 && hops.length < limit) {
      const last = hops.at(-1)!;
      hops.push(await this.get(new URL(last.headers.location!, last.url).href));
    }
    return hops;
  }
}

export function location(res: RawResponse & { url: string }): URL {
  expect(res.status, res.text).toBe(302);
  return new URL(res.headers.location!, res.url);
}
