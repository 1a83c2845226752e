import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../support/browser.ts';
import { release } from '../../support/hosting.ts';
import { bearer, createUser, PASSWORD, passwordKey, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// The acceptance of sharing in real Chromium: a restricted app shared with an account of another
// company opens for them as editor; a public link asks for sign-in, comes back and opens production
// read-only; after a revoke the link opens nothing. The app's own script asks auth/me with its ticket.

let svc: TestService;
let browser: Browser;
let dev: string;

beforeAll(async () => {
  svc = await startTestService();
  const { op } = await seedCompanies(svc);
  await createUser(svc, op, 'lena', [{ cellId: 'cell-globex', role: 'member' }]);
  dev = await passwordKey(svc, 'dana');
  const files = [
    {
      path: 'index.html',
      encoding: 'utf8' as const,
      content: '<!doctype html><body><p id="out"></p><script src="app.js"></script></body>',
    },
    {
      path: 'app.js',
      encoding: 'utf8' as const,
      content:
        "const ticket = document.querySelector('meta[name=svc-app-ticket]').content;\n" +
        `fetch('${svc.url}/api/v1/developer/auth/me', { headers: { authorization: 'Bearer ' + ticket } })\n` +
        '  .then((r) => r.json())\n' +
        "  .then((me) => { document.title = 'role ' + me.data.role + ' ' + me.data.channel + ' ' + me.data.permissions.write.length; });\n",
    },
  ];
  const manifest = { auth: { access: 'restricted' }, sdk: ['semantic'], semantic: { types: ['acme.Order'], write: ['acme.Order'] } };
  await release(svc, dev, { namespace: 'cell-acme', slug: 'ledger', version: '1.0.0', files, manifest });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** A fresh browser that goes to `address`, signs in as `login` when asked, and comes back. */
async function openAs<T>(login: string, address: string, fn: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(address);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await page.getByLabel('Username or email').fill(login);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/signin');
    return await fn(page);
  } finally {
    await context.close();
  }
}

const share = (body: object) =>
  svc.call('POST', '/api/v1/developer/shares', { body: { namespace: 'cell-acme', slug: 'ledger', ...body }, headers: bearer(dev) });
const roleShown = async (page: Page) => {
  // Polled from outside: the app's CSP forbids evaluating strings in the page.
  await expect.poll(() => page.title(), { timeout: 10_000 }).toMatch(/^role /);
  return page.title();
};

describe('sharing in the browser', () => {
  it('a named account of another company opens the restricted app as editor', async () => {
    const address = `${svc.addresses.productionBase}/cell-acme/apps/ledger`;
    await openAs('gus', address, async (page) => {
      expect(await page.locator('h1').textContent()).toBe('You cannot open this app');
      expect((await share({ audience: 'users', account: 'gus' })).status).toBe(201);
      await page.goto(address);
      expect(await roleShown(page)).toBe('role editor production 1');
    });
  });

  it('a public link needs sign-in, then opens production read-only; after a revoke it opens nothing', async () => {
    const created = await share({ audience: 'public' });
    const url: string = created.body.data.url;
    await openAs('lena', url, async (page) => {
      expect(page.url()).toBe(url);
      // Another company's person, with no share by name: read-only, nothing to write.
      expect(await roleShown(page)).toBe('role viewer production 0');
    });
    await openAs('multi', url, async (page) => {
      // A member of cell-acme keeps the company role.
      expect(await roleShown(page)).toBe('role member production 1');
    });
    const revoked = await svc.call('DELETE', `/api/v1/developer/shares/${created.body.data.share.id}?namespace=cell-acme&slug=ledger`, {
      headers: bearer(dev),
    });
    expect(revoked.status).toBe(200);
    await openAs('lena', url, async (page) => {
      expect(await page.locator('h1').textContent()).toBe('This link does not open anything');
    });
  });
});
