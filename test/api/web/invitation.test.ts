import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSmtpSink } from '../../support/app-workflows.ts';
import { launchBrowser } from '../../support/browser.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { withPage } from './page.ts';

// The invitation link of an imported (pending) account, as emailed through a real SMTP server,
// in a real browser: the sign-in page lets the person choose a password, signs them in and sends them on.
// The email leaves through the outbox and the worker (role all: the embedded Temporal).

let svc: TestService;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let browser: Browser;
let origin: string;
let dev: string;

beforeAll(async () => {
  smtp = await startSmtpSink();
  svc = await startTestService({ role: 'all', env: { SVC_SMTP_URL: smtp.url } });
  origin = svc.url!;
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await smtp?.stop();
});
beforeEach(() => resetRateLimits(svc));

const onPage = <T>(fn: (page: Page) => Promise<T>) => withPage(browser, origin, fn);

async function invite(email: string): Promise<string> {
  const res = await svc.call('POST', '/api/v1/developer/members/import', { body: [{ email }], headers: bearer(dev) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  // Sent after the commit, by the worker.
  const mail = await vi.waitFor(
    () => {
      const found = smtp.received.findLast((m) => m.to.includes(email));
      if (!found) throw new Error(`no invitation mailed to ${email} yet`);
      return found;
    },
    { timeout: 60_000, interval: 100 },
  );
  const url = /(\S+\/signin\?invitation=\S+)/.exec(mail.text)?.[1];
  if (!url) throw new Error(`no invitation mailed to ${email}`);
  return url;
}

describe('an invitation link', () => {
  it('sets the first password on the sign-in page and signs the person in', async () => {
    const url = new URL(await invite('browser.invitee@example.com'));
    await onPage(async (page) => {
      await page.goto(`${origin}${url.pathname}${url.search}&next=${encodeURIComponent('/device')}`);
      await page.getByLabel('Choose a password (at least 12 characters)').fill('my-first-password');
      await page.getByLabel('Chosen password again').fill('my-first-password');
      await page.getByRole('button', { name: 'Activate and sign in' }).click();
      await page.waitForURL(`${origin}/device`, { timeout: 10_000 });
      const session = await page.evaluate(`fetch('/api/v1/web/session').then((r) => r.json())`);
      expect((session as { data: { account: { username: string } } }).data.account.username).toBe('browser.invitee@example.com');
    });
    const members = await svc.call('GET', '/api/v1/developer/members', { headers: bearer(dev) });
    expect(members.body.data.members.find((m: { email: string }) => m.email === 'browser.invitee@example.com')).toMatchObject({
      status: 'active',
      activated: true,
    });
  });

  it('says so when the link was already used', async () => {
    const url = new URL(await invite('used.twice@example.com'));
    const accept = await svc.call('POST', '/api/v1/web/invitations/accept', {
      body: { invitation: url.searchParams.get('invitation'), password: 'my-first-password' },
      headers: { origin: svc.addresses.baseUrl },
    });
    expect(accept.status).toBe(200);
    await onPage(async (page) => {
      await page.goto(`${origin}${url.pathname}${url.search}`);
      await page.getByLabel('Choose a password (at least 12 characters)').fill('another-password');
      await page.getByLabel('Chosen password again').fill('another-password');
      await page.getByRole('button', { name: 'Activate and sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('not valid');
    });
  });
});
