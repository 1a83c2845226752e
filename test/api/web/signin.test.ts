import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../support/browser.ts';
import { createUser, PASSWORD, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { withPage } from './page.ts';

// The sign-in page in a real browser (Chromium, see test/support/browser.ts): where it sends a
// person after signing in, and what it keeps of a temporary password.

let svc: TestService;
let browser: Browser;
let op: string;
/** http://127.0.0.1:<port>, where the pages are. */
let origin: string;

beforeAll(async () => {
  svc = await startTestService();
  origin = svc.url!;
  ({ op } = await seedCompanies(svc));
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});
beforeEach(() => resetRateLimits(svc));

const onPage = <T>(fn: (page: Page) => Promise<T>) => withPage(browser, origin, fn);

/** Signs in as dana on /signin?next=<next> and returns where the browser went. */
async function signInWithNext(page: Page, next: string): Promise<URL> {
  await page.goto(`${origin}/signin?next=${encodeURIComponent(next)}`);
  const signInPage = page.url();
  await page.getByLabel('Username or email').fill('dana');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.href !== signInPage, { timeout: 10_000 });
  return new URL(page.url());
}

describe('after sign-in, the page follows next only within this site', () => {
  it.for([
    '/.//evil.example/login',
    '/..//evil.example',
    '/%2e//evil.example',
    '/./\\evil.example',
    '/.\t//evil.example',
    '//evil.example',
    '/\\evil.example',
    'https://evil.example',
    'javascript:alert(1)',
  ])('refuses next=%j and goes to /device', async (next) => {
    await onPage(async (page) => {
      const landed = await signInWithNext(page, next);
      expect(landed.origin).toBe(origin);
      expect(landed.pathname + landed.search).toBe('/device');
    });
  });

  it('honours a page of this site, with its query', async () => {
    await onPage(async (page) => {
      const landed = await signInWithNext(page, '/device?code=ABCD-EFGH');
      expect(landed.href).toBe(`${origin}/device?code=ABCD-EFGH`);
    });
  });

  it('refuses a path that would start with // or /\\ once decoded, resolved or stripped of tabs and newlines', async () => {
    const refused = [
      '/%2f/evil.example',
      '/%2F%2Fevil.example',
      '/%5cevil.example',
      '/%09/evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      '/\r/evil.example',
      // Only decoding and then resolving makes this //evil.example.
      '/%2e%2e%2f%2fevil.example',
      // Not even a valid address: the page must not fail on it.
      '//[',
    ];
    const allowed = ['/device?code=ABCD-EFGH#top', '/web/../device', '/device?next=//evil.example'];
    await onPage(async (page) => {
      await page.goto(`${origin}/signin`);
      // The module the sign-in page runs, imported in the page so that `location` is this site. A string,
      // not a function: vitest would rewrite a function's import() into something only Node has.
      const values = JSON.stringify([...refused, ...allowed]);
      const results = await page.evaluate(`import('/web/assets/common.js').then(({ safeNext }) => ${values}.map(safeNext))`);
      expect(results).toEqual([
        ...refused.map(() => '/device'),
        `${origin}/device?code=ABCD-EFGH#top`,
        `${origin}/device`,
        `${origin}/device?next=//evil.example`,
      ]);
    });
  });
});

describe('a temporary password', () => {
  it('is kept out of the page: no attribute, hidden field, text or unseen input carries it', async () => {
    await createUser(svc, op, 'temp-dom', [{ cellId: 'cell-acme', role: 'member' }], { mustChangePassword: true });
    await onPage(async (page) => {
      await page.goto(`${origin}/signin`);
      await page.getByLabel('Username or email').fill('temp-dom');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('New password (at least 12 characters)').waitFor();

      expect(await page.content()).not.toContain(PASSWORD);
      const inputValues = await Promise.all((await page.locator('input').all()).map((input) => input.inputValue()));
      expect(inputValues).not.toContain(PASSWORD);

      // The page asks for it again instead, and a wrong one is said to be wrong.
      await page.getByLabel('Temporary password').fill('not-the-password');
      await page.getByLabel('New password (at least 12 characters)').fill('a-new-long-password');
      await page.getByLabel('New password again').fill('a-new-long-password');
      await page.getByRole('button', { name: 'Change password and sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong temporary password.');
      await page.getByLabel('Temporary password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Change password and sign in' }).click();
      await page.waitForURL(`${origin}/device`);
    });
  });
});
