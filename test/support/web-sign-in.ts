import type { Browser, Page } from 'playwright-core';
import { PASSWORD } from './identity.ts';

// Apart from browser.ts, which temporal-dev's own tests use without svc's test support.

/** Runs `fn` with a page of a fresh context signed in on the service's web sign-in form as `login`; the context is closed after. */
export async function signedIn<T>(browser: Browser, baseUrl: string, login: string, fn: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${baseUrl}/signin`);
    await page.getByLabel('Username or email').fill(login);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/signin');
    return await fn(page);
  } finally {
    await context.close();
  }
}
