import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOntology } from '../../../domain/ontology/repository.ts';
import { writeEdits } from '../../../domain/ontology/write-edits.ts';
import { launchBrowser } from '../../support/browser.ts';
import { release } from '../../support/hosting.ts';
import { bearer, PASSWORD, passwordKey, seedCompanies } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { ACTIONS } from '../../support/ontology-actions.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { withPage } from '../web/page.ts';

// The acceptance in Chromium: a developer defines a module with a table of open orders and a
// form that pays an order, publishes it; a member opens it, and another member's action refreshes
// the first member's table without a reload (the browser's own EventSource on the auto-refresh stream).

let svc: TestService;
let browser: Browser;
let rid: string;
let other: string;

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  const dev = await passwordKey(svc, 'dana');
  other = await passwordKey(svc, 'multi', 'cell-acme');
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) })).status).toBe(200);
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', { body: ACTIONS, headers: bearer(dev) })).status).toBe(
    200,
  );
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'desk',
    version: '1.0.0',
    manifest: { semantic: { types: ['sales.Order'], actions: ['sales.payOrder'] } },
  });
  const companyId = (await findOntology(svc.database.db, 'cell-acme'))!.companyId;
  await svc.database.db.transaction().execute((trx) =>
    writeEdits(trx, {
      companyId,
      accountId: null,
      operationId: 'seed',
      actionTypeRid: null,
      edits: [1, 2, 3].map((number) => ({
        type: 'create' as const,
        objectType: 'sales.Order',
        properties: { number, paid: false, amount: 10 },
      })),
    }),
  );
  const definition = {
    title: 'Orders desk',
    pages: [
      {
        id: 'desk',
        title: 'Open orders',
        autoRefresh: { enabled: true, intervalSeconds: 10 },
        widgets: [
          {
            id: 'open',
            type: 'table',
            title: 'Open orders',
            objectSet: { objectType: 'sales.Order', where: { paid: false }, sort: ['number'] },
            columns: ['number', 'amount'],
          },
          { id: 'pay', type: 'form', title: 'Pay an order', action: 'sales.payOrder' },
        ],
      },
    ],
  };
  const made = await svc.call('POST', '/api/v1/workshop/modules', { body: { name: 'Desk', definition }, headers: bearer(dev) });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  rid = made.body.data.rid;
  expect((await svc.call('POST', `/api/v1/workshop/modules/${rid}/versions/1/publish`, { headers: bearer(dev) })).status).toBe(200);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('module page', () => {
  it('a member’s table follows another member’s action without a reload, and its form runs the action', { timeout: 120_000 }, async () => {
    await withPage(browser, svc.url!, async (page) => {
      await page.goto(`${svc.url}/web/modules?rid=${encodeURIComponent(rid)}&page=desk`);
      await page.waitForURL(/\/signin\?next=/);
      await page.getByLabel('Username or email').fill('mo');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/web\/modules\?rid=/);
      const rows = () => page.locator('[data-widget="open"] tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')));
      // Waits, not time goals: a loaded CI machine takes seconds for what takes milliseconds here.
      await expect.poll(rows, { timeout: 15_000 }).toEqual(['1', '2', '3']);
      expect(await page.locator('#title').textContent()).toBe('Open orders');
      await page.locator('body[data-live="true"]').waitFor();
      // Marks the document: a reload would lose it.
      await page.evaluate(() => {
        (globalThis as { kept?: boolean }).kept = true;
      });

      const paid = await svc.call('POST', '/api/v1/ontologies/cell-acme/actions/sales.payOrder/apply', {
        body: { parameters: { order: 2 } },
        headers: bearer(other),
      });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      await expect.poll(rows, { timeout: 15_000 }).toEqual(['1', '3']);
      expect(await page.evaluate(() => (globalThis as { kept?: boolean }).kept)).toBe(true);

      await page.getByLabel('order').fill('3');
      await page.getByRole('button', { name: 'Pay order' }).click();
      await expect.poll(() => page.locator('[data-widget="pay"] [role="status"]').textContent(), { timeout: 15_000 }).toBe('Done.');
      await expect.poll(rows, { timeout: 15_000 }).toEqual(['1']);
    });
  });
});
