import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { TestClock } from '../support/clock.ts';
import { release } from '../support/hosting.ts';
import { bearer, PASSWORD, passwordKey, resetRateLimits, seedCompanies } from '../support/identity.ts';
import { SALES } from '../support/ontology.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The SDK inside a sandboxed published app, in real Chromium: the page (opaque origin) loads the
// SDK from the service, finds the injected ticket, reads who is signed in, logs usage and
// feedback, reads objects of the data layer, captures errors (10 per class), and renews its
// ticket when it has expired.

const clock = new TestClock('2026-11-22T10:00:00Z');
let svc: TestService;
let browser: Browser;
let dev: string;

/** A classic script that imports the SDK: the page's own files are not served for CORS module loads. */
const appScript = (baseUrl: string) => `
import('${baseUrl}/developer/sdk/v1/semantic.js').then(async ({ createClient }) => {
  const svc = createClient();
  svc.log.captureErrors();
  self.svc = svc;
  const me = await svc.auth.me();
  const track = await svc.log.track('opened', { from: 'test' });
  const feedback = await svc.log.feedback({ topic: 'layout', rating: 5 });
  const orders = await svc.semantic.search('sales.Order', {
    where: { type: 'gt', field: 'amount', value: 10 },
    orderBy: { fields: [{ field: 'amount', direction: 'desc' }] },
    select: ['number', 'amount'],
  });
  const hidden = await svc.semantic.search('sales.Customer').catch((e) => ({ code: e.code, marker: e.marker }));
  document.getElementById('out').textContent = JSON.stringify({ origin: self.origin, me, track, feedback, orders, hidden });
  document.title = 'ran';
  setTimeout(() => { throw new SyntaxError('uncaught in the page'); });
});`;

beforeAll(async () => {
  svc = await startTestService({ clock });
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  // Data the app reads: the sales types in Acme's ontology and three orders.
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  const imported = await svc.call('POST', '/api/v1/ontologies/cell-acme/objects/sales.Order/import', {
    body: [
      { number: 1, amount: 5 },
      { number: 2, amount: 40 },
      { number: 3, amount: 12.5 },
    ],
    headers: bearer(dev),
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'sdk-app',
    version: '1.0.0',
    // The app lists sales.Order only: sales.Customer does not exist for its visitors.
    manifest: { sdk: ['semantic'], semantic: { types: ['sales.Order'], actions: [], write: [] } },
    files: [
      {
        path: 'index.html',
        encoding: 'utf8',
        content:
          '<!doctype html><html><head><title>loading</title></head><body><pre id="out"></pre><script src="app.js"></script></body></html>',
      },
      { path: 'app.js', encoding: 'utf8', content: appScript(svc.url!) },
    ],
  });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

async function signedInPage(login: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${svc.url}/signin`);
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/signin');
  return page;
}

const events = async (kind: string) =>
  (await svc.call('GET', `/api/v1/developer/log/cell-acme/events?slug=sdk-app&kind=${kind}`, { headers: bearer(dev) })).body.data
    .events as { name: string; visitor: { username: string }; data: unknown }[];

describe('the SDK in a sandboxed app page', () => {
  it('reads who is signed in and objects of its types, logs events, captures errors and renews its expired ticket', async () => {
    const page = await signedInPage('mo');
    try {
      await page.goto(`${svc.addresses.productionBase}/cell-acme/apps/sdk-app`);
      await expect.poll(() => page.title()).toBe('ran');
      const out = JSON.parse((await page.locator('#out').textContent())!);
      expect(out.origin).toBe('null');
      expect(out.me).toMatchObject({ identity: { username: 'mo' }, role: 'member', app: { namespace: 'cell-acme', slug: 'sdk-app' } });
      expect(out.track).toMatchObject({ stored: 1 });
      expect(out.feedback).toMatchObject({ stored: 1 });
      // A semantic read with the page's ticket, as a member: the types the app lists, nothing else.
      expect(out.orders).toMatchObject({
        data: [expect.objectContaining({ number: 2, amount: 40 }), expect.objectContaining({ number: 3, amount: 12.5 })],
        totalCount: 2,
      });
      expect(out.hidden).toEqual({ code: 'object_type_not_found', marker: 'svc-sdk-error' });
      expect((await events('usage')).filter((e) => e.name === 'opened').map((e) => e.visitor.username)).toEqual(['mo']);
      expect((await events('feedback')).map((e) => e.name)).toEqual(['layout']);

      // The uncaught error reached the log through captureErrors. The page's own scripts are
      // cross-origin to its opaque origin, so the browser mutes their errors ("Script error.").
      await expect
        .poll(async () => (await events('error')).map((e) => [e.name, (e.data as any).error.message]))
        .toEqual([['Error', 'Script error.']]);
      // Then 11 of one class: 10 sent (in a fresh minute of the app's 30 requests per IP).
      await resetRateLimits(svc);
      const dropped = await page.evaluate(async () => {
        const results = [];
        for (let i = 0; i < 11; i++) results.push(await (globalThis as any).svc.log.error(new RangeError(`r${i}`)));
        return results.filter((r) => r.dropped).length;
      });
      expect(dropped).toBe(1);
      expect((await events('error')).filter((e) => e.name === 'RangeError')).toHaveLength(10);

      // Nine hours on the ticket has expired: the next call is refused, renewed once and repeated.
      const ticketsBefore = await svc.database.db.selectFrom('app_tickets').select('id').where('renewed_from', 'is not', null).execute();
      // The service's clock (a test clock, hours behind this machine's) makes every ticket look
      // due to the browser: it renewed once on load, then stopped instead of renewing in a loop.
      expect(ticketsBefore.length).toBeLessThanOrEqual(1);
      clock.advance({ minutes: 9 * 60 });
      const me = await page.evaluate(() => (globalThis as any).svc.auth.me());
      expect(me.identity.username).toBe('mo');
      const renewed = await svc.database.db.selectFrom('app_tickets').select('id').where('renewed_from', 'is not', null).execute();
      expect(renewed.length).toBe(ticketsBefore.length + 1);
      // Later calls use the new ticket: no further renewal.
      await page.evaluate(() => (globalThis as any).svc.log.track('after-renewal'));
      expect((await svc.database.db.selectFrom('app_tickets').select('id').where('renewed_from', 'is not', null).execute()).length).toBe(
        renewed.length,
      );
    } finally {
      await page.context().close();
    }
  });
});
