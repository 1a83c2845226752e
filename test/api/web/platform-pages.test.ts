import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, seriousViolations } from '../../support/axe.ts';
import { launchBrowser } from '../../support/browser.ts';
import { release } from '../../support/hosting.ts';
import { bearer, createOrganization, createUser, PASSWORD, passwordKey, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { withPage } from './page.ts';

// The server-rendered platform pages in Chromium (issue 35): the landing page at `/`, catalogs
// titled by the company's name with the apps shared with the visitor, the 403 that says what the
// visitor already has, and on every one of them who is signed in with a sign-out. Each page passes
// the accessibility check (no serious or critical axe-core violation) and leaves a screenshot.

/** A company name from outside: markup, and a right-to-left override that must reorder nothing but itself. */
const HOSTILE_NAME = 'Evil <script>alert(1)</script> \u202Eelpmaxe';

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  svc = await startTestService();
  const { op } = await seedCompanies(svc);
  await createOrganization(svc, op, 'cell-evil', HOSTILE_NAME);
  await createUser(svc, op, 'eve', [{ cellId: 'cell-evil', role: 'member' }]);
  await createUser(svc, op, 'nell', []);
  const dev = await passwordKey(svc, 'dana');
  await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.0.0' });
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'ledger',
    version: '1.0.0',
    manifest: {
      auth: { access: 'restricted' },
      summary: 'The orders of the week',
      description: 'Lists the week’s orders and lets the sales team mark them shipped.',
      examples: ['Which orders are late?'],
      sdk: ['semantic'],
      semantic: { types: ['acme.Order'], write: ['acme.Order'] },
    },
  });
  for (const account of ['gus', 'nell']) {
    const shared = await svc.call('POST', '/api/v1/developer/shares', {
      body: { namespace: 'cell-acme', slug: 'ledger', audience: 'users', account },
      headers: bearer(dev),
    });
    expect(shared.status).toBe(201);
  }
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** The page is accessible, and its screenshot is kept under `name`. */
async function checked(page: Page, name: string): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, name);
}

async function signInHere(page: Page, login: string): Promise<void> {
  await page.locator('header').getByRole('link', { name: 'Sign in' }).click();
  await page.waitForURL(/\/signin\?next=/);
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/signin');
}

const who = (page: Page) => page.locator('header .who').textContent();

describe('platform pages', () => {
  it('the landing page says what svc is, signs in and back, lists the visitor’s catalogs and the API description', async () => {
    await withPage(browser, svc.url!, async (page) => {
      const res = await page.goto(`${svc.url}/`);
      expect(res!.status()).toBe(200);
      expect(res!.headers()['content-security-policy']).toMatch(/^sandbox; default-src 'none'/);
      expect([await page.title(), await page.locator('h1').textContent()]).toEqual(['Home · svc', 'svc']);
      expect(await page.locator('.lead').textContent()).toContain('single-page apps');
      expect(await who(page)).toBe('Sign in');
      const openapi = page.getByRole('link', { name: 'API description (OpenAPI 3.1, JSON)' });
      expect(await openapi.getAttribute('href')).toBe(`${svc.url}/api/v1/openapi.json`);
      expect(await page.getByRole('link', { name: 'Official apps' }).getAttribute('href')).toBe(`${svc.addresses.productionBase}/apps`);
      await checked(page, 'landing-anonymous');

      await signInHere(page, 'gus');
      expect(new URL(page.url()).pathname).toBe('/');
      expect(await who(page)).toBe('Signed in as gus · Sign out');
      const catalog = page.getByRole('link', { name: 'Globex apps' });
      expect(await catalog.getAttribute('href')).toBe(`${svc.addresses.productionBase}/cell-globex/apps`);
      // gus is a developer of Globex: its test catalog too.
      expect(await page.getByRole('link', { name: 'test' }).getAttribute('href')).toBe(`${svc.addresses.developerBase}/cell-globex/apps`);
      await checked(page, 'landing-signed-in');
    });
  });

  it('a catalog is titled by the company’s name and lists the apps of other companies shared with the visitor', async () => {
    await withPage(browser, svc.url!, async (page) => {
      await page.goto(`${svc.url}/`);
      await signInHere(page, 'gus');
      await page.getByRole('link', { name: 'Globex apps' }).click();
      expect(await page.locator('h1').textContent()).toBe('Globex apps');
      expect(await page.title()).toBe('Globex apps · svc');
      expect(await page.locator('main > p').first().textContent()).toBe('No apps yet.');
      expect(await page.locator('h2').textContent()).toBe('Shared with you');
      const ledger = page.getByRole('link', { name: 'App ledger' });
      expect(await ledger.getAttribute('href')).toBe(`${svc.addresses.productionBase}/cell-acme/apps/ledger`);
      expect(await page.locator('ul.apps li').textContent()).toContain('from Acme');
      // Only what the policy admits: hello is Acme's, not shared with gus.
      expect(await page.getByRole('link', { name: 'App hello' }).count()).toBe(0);
      expect(await who(page)).toBe('Signed in as gus · Sign out');
      await checked(page, 'catalog-shared-with-you');
    });
    // An account in no company lands on the official catalog, which lists what is shared with it.
    await withPage(browser, svc.url!, async (page) => {
      await page.goto(`${svc.addresses.productionBase}`);
      await page.getByLabel('Username or email').fill('nell');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${svc.addresses.productionBase}/apps`);
      expect(await page.locator('h1').textContent()).toBe('Official apps');
      expect(await page.locator('h2').textContent()).toBe('Shared with you');
      expect(await page.getByRole('link', { name: 'App ledger' }).count()).toBe(1);
      await checked(page, 'catalog-official-shared');
    });
    // The member's own catalog lists the company's apps, and nothing under "Shared with you".
    await withPage(browser, svc.url!, async (page) => {
      await page.goto(`${svc.addresses.productionBase}`);
      await page.getByLabel('Username or email').fill('mo');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/cell-acme\/apps$/);
      expect(await page.locator('h1').textContent()).toBe('Acme apps');
      expect(await page.locator('ul.apps li a:first-child').allTextContents()).toEqual(['App hello', 'App ledger']);
      expect(await page.locator('h2').count()).toBe(0);
      await checked(page, 'catalog-member');
    });
  }, 60_000);

  it('a share holder on the test address is told they have the production version, with its address', async () => {
    await withPage(browser, svc.url!, async (page) => {
      await page.goto(`${svc.url}/`);
      await signInHere(page, 'gus');
      const res = await page.goto(`${svc.addresses.developerBase}/cell-acme/apps/ledger`);
      expect(res!.status()).toBe(403);
      expect(await page.locator('main p').allTextContents()).toEqual([
        'The test version is for the company’s developers.',
        'You have access to the production version.',
        `${svc.addresses.productionBase}/cell-acme/apps/ledger`,
      ]);
      expect(await who(page)).toBe('Signed in as gus · Sign out');
      await checked(page, 'forbidden-test-address');
      // Someone with no share is still told to ask for one.
      await page.goto(`${svc.addresses.productionBase}/cell-acme/apps/hello`);
      expect(await page.locator('main p').allTextContents()).toEqual([
        'This app belongs to cell-acme and you are not a member of that company.',
        'Ask an admin of that company for a license, or a developer of the app to share it with you.',
      ]);
      // Another company's catalog points to the visitor's own.
      const other = await page.goto(`${svc.addresses.productionBase}/cell-acme/apps`);
      expect(other!.status()).toBe(403);
      await page.getByRole('link', { name: 'Your catalogs' }).click();
      await page.waitForURL(`${svc.url}/`);
      expect(await page.getByRole('link', { name: 'Globex apps' }).count()).toBe(1);
      // The production address opens the app.
      await page.goto(`${svc.addresses.developerBase}/cell-acme/apps/ledger`);
      await page.getByRole('link', { name: `${svc.addresses.productionBase}/cell-acme/apps/ledger` }).click();
      await expect.poll(() => page.title()).toBe('ledger');
    });
  });

  it('error pages name who is signed in, and signing out from any platform page ends the session', async () => {
    await withPage(browser, svc.url!, async (page) => {
      const missing = await page.goto(`${svc.addresses.productionBase}/cell-acme/apps/nothing-here`);
      expect(missing!.status()).toBe(404);
      expect(await who(page)).toBe('Sign in');
      await signInHere(page, 'mo');
      expect(new URL(page.url()).pathname).toBe('/p/cell-acme/apps/nothing-here');
      expect(await who(page)).toBe('Signed in as mo · Sign out');
      await checked(page, 'not-found-signed-in');

      await page.getByRole('link', { name: 'Sign out' }).click();
      await page.waitForURL(`${svc.url}/signout`);
      await expect.poll(() => page.locator('#who').textContent()).toBe('Signed in as mo');
      await checked(page, 'signout');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${svc.url}/`);
      expect(await who(page)).toBe('Sign in');
      const session = await page.request.get(`${svc.url}/api/v1/web/session`);
      expect(session.status()).toBe(401);
    });
  });

  it('the app page says what the app is, whose, which version, what it reads and writes, and how to open it', async () => {
    await withPage(browser, svc.url!, async (page) => {
      const res = await page.goto(`${svc.addresses.productionBase}/cell-acme/apps/ledger/about`);
      expect(res!.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toBe('App ledger');
      expect(await page.locator('.lead').textContent()).toBe('The orders of the week');
      const facts = Object.fromEntries((await page.locator('dl.facts dt').allTextContents()).map((term, i) => [term, i]));
      const values = await page.locator('dl.facts dd').allTextContents();
      expect(Object.fromEntries(Object.entries(facts).map(([term, i]) => [term, values[i]]))).toEqual({
        Owner: 'Acme',
        Version: '1.0.0',
        SDKs: 'semantic',
        Reads: 'acme.Order',
        Writes: 'acme.Order',
      });
      const open = page.locator('h2:has-text("How to open it") + ul li');
      expect(await open.first().textContent()).toBe('Open the app: Developers of Acme and the people it is shared with, after signing in.');
      expect(await open.nth(1).textContent()).toBe(
        `AI hosts (MCP, sign-in through OAuth): ${svc.url}/api/v1/developer/apps/cell-acme/ledger/mcp`,
      );
      expect(await page.getByText('Which orders are late?').count()).toBe(1);
      expect(await who(page)).toBe('Sign in');
      await checked(page, 'about');
    });
  });

  it('a hostile company name is shown as text, isolated, and breaks nothing', async () => {
    await withPage(browser, svc.url!, async (page) => {
      await page.goto(`${svc.url}/`);
      await signInHere(page, 'eve');
      const link = page.locator('ul.apps a').first();
      expect(await link.textContent()).toBe(`${HOSTILE_NAME} apps`);
      expect(await link.locator('bdi').textContent()).toBe(HOSTILE_NAME);
      await link.click();
      expect(await page.locator('h1').textContent()).toBe(`${HOSTILE_NAME} apps`);
      // Only the name is isolated: " apps" keeps its place after it.
      expect(await page.locator('h1 bdi').textContent()).toBe(HOSTILE_NAME);
      expect(await page.locator('script').count()).toBe(0);
      expect(await page.title()).toBe('Evil <script>alert(1)</script> elpmaxe apps · svc');
      expect(await who(page)).toBe('Signed in as eve · Sign out');
      await checked(page, 'catalog-hostile-name');
    });
  });
});
