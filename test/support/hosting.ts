import http from 'node:http';
import { expect } from 'vitest';
import { bundle } from './bundles.ts';
import { bearer } from './identity.ts';
import type { HttpService } from './service.ts';

// App pages over raw HTTP: no redirect followed, no body decompressed, every header as sent.

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export function rawGet(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, body, text: body.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

type File = { path: string; encoding: 'utf8' | 'base64'; content: string };

/** Uploads a version and moves it through test to production (or only to test). */
export async function release(
  svc: HttpService,
  key: string,
  app: { namespace: string; slug: string; version: string; files?: File[]; manifest?: object },
  to: 'test' | 'production' = 'production',
): Promise<void> {
  const base = `/api/v1/developer/apps/${app.namespace}/${app.slug}`;
  const up = await svc.call('POST', `${base}/versions`, {
    body: bundle(app.slug, app.version, {
      ...(app.files ? { files: app.files } : {}),
      ...(app.manifest ? { manifest: app.manifest } : {}),
    }),
    headers: bearer(key),
  });
  expect(up.status, JSON.stringify(up.body)).toBeLessThan(300);
  for (const channel of to === 'test' ? ['test'] : ['test', 'production']) {
    const res = await svc.call('POST', `${base}/channels/${channel}`, { body: { version: app.version }, headers: bearer(key) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

/** The version's `_v/` segment and the ticket an entry page carries. */
export function injected(html: string): { base: string; ticket: string } {
  const base = /<base href="([^"]+)">/.exec(html)?.[1];
  const ticket = /<meta name="svc-app-ticket" content="([^"]+)">/.exec(html)?.[1];
  expect(base && ticket, html).toBeTruthy();
  return { base: base!, ticket: ticket! };
}

/** The ticket cookie an entry page sets, as a Cookie header. */
export function ticketCookie(res: RawResponse): string {
  const cookie = (res.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc_app_ticket='));
  expect(cookie).toBeDefined();
  return cookie!.split(';')[0]!;
}
