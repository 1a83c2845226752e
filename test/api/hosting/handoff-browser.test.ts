import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithAppHosts } from '../../support/app-hosts.ts';
import { launchBrowser } from '../../support/browser.ts';
import { release } from '../../support/hosting.ts';
import { PASSWORD, passwordKey, seedCompanies } from '../../support/identity.ts';
import type { TestService } from '../../support/service.ts';

// The hand-off in real Chromium: an app on a host of its own (apps.localhost), signing in on
// {base_url} (127.0.0.1), back on the app with its script running.

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  svc = await startWithAppHosts();
  await seedCompanies(svc);
  await release(svc, await passwordKey(svc, 'dana'), {
    namespace: 'cell-acme',
    slug: 'hello',
    version: '1.0.0',
    files: [
      { path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>loading</title><script src="app.js"></script>' },
      { path: 'app.js', encoding: 'utf8', content: "document.title = 'ran on ' + location.host;" },
    ],
  });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('an app on a separate host in the browser', () => {
  it('sends the visitor to sign in on {base_url} and back to the app, whose script runs', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const app = `${svc.addresses.productionBase}/cell-acme/apps/hello`;
      await page.goto(app);
      expect(new URL(page.url()).origin).toBe(svc.addresses.baseUrl);
      expect(new URL(page.url()).pathname).toBe('/signin');
      await page.getByLabel('Username or email').fill('mo');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(app);
      await page.waitForFunction("document.title.startsWith('ran ')");
      expect(await page.title()).toBe(`ran on ${new URL(app).host}`);
      // The app host's own session: HttpOnly, host-only, and no cookie of {base_url}'s.
      const cookies = await context.cookies(app);
      expect(cookies.find((c) => c.name === 'svc_app_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      expect(cookies.find((c) => c.name === 'svc_session')).toBeUndefined();
    } finally {
      await context.close();
    }
  });
});
