import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../support/browser.ts';
import { createUser, PASSWORD, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { withPage as withSitePage } from './page.ts';

// The approval page in a real browser: Chromium (see test/support/browser.ts) driven by playwright-core.

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  svc = await startTestService();
  const { op } = await seedCompanies(svc);
  await createUser(svc, op, 'temp', [{ cellId: 'cell-acme', role: 'member' }], { mustChangePassword: true });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});
beforeEach(() => resetRateLimits(svc));

async function startDeviceLogin(clientName = 'terminal') {
  const res = await svc.call('POST', '/api/v1/developer/device-codes', { body: { clientName } });
  return res.body.data as { deviceCode: string; userCode: string; verificationUriComplete: string; verificationUri: string };
}

async function pollNow(deviceCode: string) {
  await sql`UPDATE device_logins SET last_polled_at = NULL`.execute(svc.database.db);
  return svc.call('POST', '/api/v1/developer/device-tokens', { body: { deviceCode } });
}

async function signInThroughPage(page: Page, login: string, password = PASSWORD) {
  await page.waitForURL(/\/signin\?next=/);
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const withPage = <T>(fn: (page: Page) => Promise<T>) => withSitePage(browser, svc.url!, fn);

describe('device approval page', () => {
  it('signs in, confirms the code from the link, approves, and the device gets its key', async () => {
    const d = await startDeviceLogin('dana laptop');
    await withPage(async (page) => {
      await page.goto(d.verificationUriComplete);
      await signInThroughPage(page, 'dana');
      await page.waitForURL(/\/device\?code=/);
      await expect.poll(() => page.locator('#client').textContent()).toBe('dana laptop');
      expect(await page.locator('#shown-code').textContent()).toBe(d.userCode);
      await page.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Approved for Acme as developer/);
    });
    const res = await pollNow(d.deviceCode);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ role: 'developer', clientName: 'dana laptop', company: { cellId: 'cell-acme' } });
  });

  it('lets the person type the code, pick the company, and the role there becomes the key’s', async () => {
    const d = await startDeviceLogin();
    await withPage(async (page) => {
      await page.goto(d.verificationUri);
      await signInThroughPage(page, 'multi');
      await page.waitForURL(/\/device$/);
      await page.getByLabel('Code shown on your device').fill(d.userCode.toLowerCase().replace('-', ' '));
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('Act for').selectOption('cell-globex');
      await page.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Approved for Globex as developer/);
    });
    expect((await pollNow(d.deviceCode)).body.data).toMatchObject({ role: 'developer', company: { cellId: 'cell-globex' } });
  });

  it('denies', async () => {
    const d = await startDeviceLogin();
    await withPage(async (page) => {
      await page.goto(d.verificationUriComplete);
      await signInThroughPage(page, 'dana');
      await page.getByRole('button', { name: 'Deny' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Denied/);
    });
    expect((await pollNow(d.deviceCode)).body.error.code).toBe('access_denied');
  });

  it('shows clear states for expired, unknown and already-used codes, and a wrong password', async () => {
    const expired = await startDeviceLogin();
    await sql`UPDATE device_logins SET expires_at = now() - interval '1 second'`.execute(svc.database.db);
    const used = await startDeviceLogin();
    await svc.call('POST', '/api/v1/developer/device-codes/decision', {
      body: { userCode: used.userCode, decision: 'approve' },
      headers: await sessionHeaders('dana'),
    });
    await pollNow(used.deviceCode);

    await withPage(async (page) => {
      await page.goto(expired.verificationUriComplete);
      await signInThroughPage(page, 'dana', 'not-the-password');
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong login or password.');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/device\?code=/);
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('This code has expired. Start the login again on your device.');

      const enter = async (code: string) => {
        await page.getByLabel('Code shown on your device').fill(code);
        await page.getByRole('button', { name: 'Continue' }).click();
      };
      await enter('BBBB-BBBB');
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('We don’t know that code. Check it and try again.');
      await enter(used.userCode);
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('This code was already used.');
      await enter('nope');
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('A code has eight letters, like BCDF-GHJK.');
    });
  });

  it('leads a temporary password through the change form back to the approval', async () => {
    const d = await startDeviceLogin();
    await withPage(async (page) => {
      await page.goto(d.verificationUriComplete);
      await signInThroughPage(page, 'temp');
      await page.getByLabel('Temporary password').fill(PASSWORD);
      await page.getByLabel('New password (at least 12 characters)').fill('a-new-long-password');
      await page.getByLabel('New password again').fill('a-new-long-password');
      await page.getByRole('button', { name: 'Change password and sign in' }).click();
      await page.waitForURL(/\/device\?code=/);
      await page.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Approved for Acme as member/);
    });
    expect((await pollNow(d.deviceCode)).status).toBe(201);
  });
});

async function sessionHeaders(login: string) {
  const res = await svc.call('POST', '/api/v1/web/sessions', {
    body: { login, password: PASSWORD },
    headers: { origin: svc.addresses.baseUrl },
  });
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, origin: svc.addresses.baseUrl };
}
