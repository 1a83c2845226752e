import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, seriousViolations } from '../../support/axe.ts';
import { launchBrowser } from '../../support/browser.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, PASSWORD, passwordKey, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { withPage } from './page.ts';

// The app log page in Chromium: a developer signs in, sees the figures, the usage chart (SVG) and
// the events, filters them, and moves a feedback open → planned → done with its buttons.

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  const dev = await passwordKey(svc, 'dana');
  await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.0.0' });
  const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/hello`, { cookie: await signIn(svc, 'mo') });
  const sent = await svc.call('POST', '/api/v1/developer/log/cell-acme/events', {
    body: {
      events: [
        { kind: 'usage', name: 'clicked-save' },
        { kind: 'feedback', topic: 'search', rating: 4, message: 'Please add a <b>filter</b>' },
        { kind: 'error', error: { name: 'TypeError', message: 'x is undefined' }, context: { where: 'save-button' } },
      ],
    },
    headers: bearer(injected(page.text).ticket),
  });
  expect(sent.status).toBe(201);
  await svc.deps.opens.flush();
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('app log page', () => {
  it('shows figures, the usage chart and events; filters; moves feedback with its buttons', async () => {
    await withPage(browser, svc.url!, async (page) => {
      await page.goto(`${svc.url}/web/log?namespace=cell-acme&slug=hello`);
      await page.waitForURL(/\/signin\?next=/);
      await page.getByLabel('Username or email').fill('dana');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/web\/log\?namespace=cell-acme&slug=hello/);

      await expect.poll(() => page.locator('#app').textContent()).toBe('cell-acme/hello');
      await expect.poll(() => page.locator('[data-figure="Visitors"] strong').textContent()).toBe('1');
      expect(await page.locator('[data-figure="Open feedback"] strong').textContent()).toBe('1');
      expect(await page.locator('[data-figure="Live version"] strong').textContent()).toBe('1.0.0');
      // One bar per day of the last 30; today's bar holds the open and the tracked usage.
      expect(await page.locator('#chart rect.bar').count()).toBe(30);
      expect(await page.locator('#chart rect.bar').last().getAttribute('data-count')).toBe('2');
      expect(Number(await page.locator('#chart rect.bar').last().getAttribute('height'))).toBeGreaterThan(0);

      await expect
        .poll(() => page.locator('#events tr[data-kind="error"] td').nth(5).textContent())
        .toBe('x is undefined (at save-button)');
      const feedback = page.locator('#events tr[data-kind="feedback"]');
      // Text from apps is shown as text, never as markup.
      expect(await feedback.locator('td').nth(5).textContent()).toBe('4/5 · Please add a <b>filter</b>');
      expect(await feedback.locator('b').count()).toBe(0);
      expect(await page.locator('#events tr[data-kind="release"]').count()).toBe(3);

      await feedback.getByRole('button', { name: 'Plan' }).click();
      await expect.poll(() => page.locator('#events tr[data-kind="feedback"] .status').textContent()).toBe('planned');
      await page.locator('#events tr[data-kind="feedback"]').getByRole('button', { name: 'Done' }).click();
      await expect.poll(() => page.locator('#events tr[data-kind="feedback"] .status').textContent()).toBe('done');
      expect(await page.locator('#events tr[data-kind="feedback"] button').count()).toBe(0);
      await expect.poll(() => page.locator('[data-figure="Open feedback"] strong').textContent()).toBe('0');

      await page.getByLabel('Kind').selectOption('error');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect.poll(() => page.locator('#events tr').count()).toBe(1);
      expect(await page.locator('#events tr').first().getAttribute('data-kind')).toBe('error');

      // By the username the rows show (any case): mo's open and three events.
      await page.getByLabel('Kind').selectOption('');
      await page.getByLabel('Visitor (username)').fill('MO');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect.poll(() => page.locator('#events tr').count()).toBe(4);
      expect(new Set(await page.locator('#events tr td:nth-child(4)').allTextContents())).toEqual(new Set(['mo']));
      // Details read as text, not JSON.
      for (const text of await page.locator('#events tr td:nth-child(6)').allTextContents()) expect(text).not.toMatch(/^[{[]/);
      expect(await page.locator('.who').textContent()).toBe('Signed in as dana · Sign out');
      await page.getByLabel('Visitor (username)').fill('');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect.poll(() => page.locator('#events tr').count()).toBeGreaterThan(4);

      // The table stays within its card.
      const card = (await page.locator('main').boundingBox())!;
      const table = (await page.locator('.table').boundingBox())!;
      expect(table.x + table.width).toBeLessThanOrEqual(card.x + card.width);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'log-developer');
    });
  });

  it('refuses a member before any of the interface shows', async () => {
    await withPage(browser, svc.url!, async (page) => {
      await page.goto(`${svc.url}/web/log?namespace=cell-acme&slug=hello`);
      await page.waitForURL(/\/signin\?next=/);
      await page.getByLabel('Username or email').fill('mo');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/web\/log\?namespace=cell-acme&slug=hello/);
      await expect.poll(() => page.locator('#message').textContent()).toBe('Only the app’s developers read its log.');
      expect(await page.locator('#log').isHidden()).toBe(true);
      expect(await page.locator('.who').textContent()).toBe('Signed in as mo · Sign out');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'log-member-refused');
    });
  });
});
