import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, seriousViolations } from '../../support/axe.ts';
import { launchBrowser } from '../../support/browser.ts';
import { rawGet, release } from '../../support/hosting.ts';
import { bearer, PASSWORD, passwordKey, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { withPage } from './page.ts';

// The app card as a page for the company's developers (issue 35, Deliver 6): at
// {developer_base}/<cellId>/apps/<slug>/card, linked from the test catalog and from the about page
// for those it admits (the policy's app.read-card), checked in Chromium with axe-core.

let svc: TestService;
let browser: Browser;
let dev: string;
let memberKey: string;
let card: string;

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'ledger',
    version: '1.2.0',
    manifest: {
      summary: 'The orders of the week',
      owner: { department: 'Sales operations', team: 'Orders', contact: 'orders@example.com' },
      sdk: ['semantic'],
      semantic: { types: ['acme.Order', 'acme.Customer'], write: ['acme.Order'] },
      cdn: ['cdn.jsdelivr.net'],
    },
  });
  card = `${svc.addresses.developerBase}/cell-acme/apps/ledger/card`;
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('the app card page', () => {
  it('is reached from the test catalog and shows owner, versions, SDKs, data, dependencies, access, use and spend', async () => {
    await withPage(browser, svc.url!, async (page) => {
      await page.goto(`${svc.addresses.developerBase}/cell-acme/apps`);
      await page.getByLabel('Username or email').fill('dana');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${svc.addresses.developerBase}/cell-acme/apps`);
      await page.getByRole('link', { name: 'card' }).click();
      await page.waitForURL(card);
      expect(await page.title()).toBe('App ledger card · svc');
      expect(await page.locator('h1').textContent()).toBe('App ledger card');
      expect(await page.locator('header .who').textContent()).toBe('Signed in as dana · Sign out');
      const facts = Object.fromEntries(
        await page.locator('dl.facts dt').evaluateAll((terms) => terms.map((t) => [t.textContent, t.nextElementSibling?.textContent])),
      );
      expect(facts).toMatchObject({
        Owner: 'Sales operations · team Orders · orders@example.com',
        Production: '1.2.0',
        Registered: 'semantic',
        Reads: 'acme.Order, acme.Customer',
        Writes: 'acme.Order',
        Exports: 'none',
        'CDN hosts': 'cdn.jsdelivr.net',
        'Last 7 days': '0 opens by 0 people',
      });
      expect(facts.Access).toContain('company: its members');
      expect(Object.keys(facts).some((term) => /^Spend \d{4}-\d\d$/.test(term))).toBe(true);
      expect(await page.getByRole('link', { name: 'App log' }).getAttribute('href')).toBe(
        `${svc.url}/web/log?namespace=cell-acme&slug=ledger`,
      );
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'app-card');
      await page.screenshot({ path: '/tmp/card.png', fullPage: true });

      // The about page links the card for the developer.
      await page.goto(`${svc.addresses.productionBase}/cell-acme/apps/ledger/about`);
      expect(await page.getByRole('link', { name: 'the app card' }).getAttribute('href')).toBe(card);
    });
  });

  it('admits the company’s developers only (app.read-card), by key or web session', async () => {
    const session = async (login: string) => ({ cookie: await signIn(svc, login) });
    // anonymous, developer session, member session, developer of another company, member here and developer elsewhere, keys
    const cases: [string, Record<string, string>, number][] = [
      ['anonymous', {}, 302],
      ['developer session', await session('dana'), 200],
      ['member session', await session('mo'), 403],
      ['other company’s developer', await session('gus'), 403],
      ['member here, developer elsewhere', await session('multi'), 403],
      ['developer key', bearer(dev), 200],
      ['member key', bearer(memberKey), 403],
    ];
    for (const [who, headers, status] of cases) {
      const res = await rawGet(card, headers);
      expect(res.status, who).toBe(status);
      if (status === 403) expect(res.text, who).not.toContain('Sales operations');
    }
    expect((await rawGet(card, {})).headers.location).toContain('/signin?next=');
    const ok = await rawGet(card, bearer(dev));
    expect(ok.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(ok.headers['cache-control']).toBe('private, no-store');
    // Production has no card page, and an unknown app is a 404.
    expect((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/ledger/card`, bearer(dev))).status).toBe(404);
    expect((await rawGet(`${svc.addresses.developerBase}/cell-acme/apps/nothing/card`, bearer(dev))).status).toBe(404);
    // Members are not offered the card on the about page.
    const about = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/ledger/about`, await session('mo'));
    expect(about.text).not.toContain('/card');
  });
});
