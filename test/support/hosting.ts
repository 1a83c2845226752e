import { expect } from 'vitest';
import { bundle } from './bundles.ts';
import { bearer } from './identity.ts';
import type { RawResponse } from './raw-http.ts';
import type { HttpService } from './service.ts';

// App pages over raw HTTP (raw-http.ts).
export { type RawResponse, rawGet } from './raw-http.ts';

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
