import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getApp } from '../../../domain/apps/repository.ts';
import { recordUsage } from '../../../domain/usage/record-usage.ts';
import { TestClock } from '../../support/clock.ts';
import { release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Billing over real HTTP: the public price list, estimates, and per app and month records and
// summaries read from the metering counters; the budget check against the same counters the
// model-call gate reads. Money is integer micro-USD throughout.

const clock = new TestClock('2026-12-05T12:00:00Z');
let svc: TestService;
let dev: string;
let member: string;
let globex: string;
const B = '/api/v1/developer/billing';

beforeAll(async () => {
  svc = await startTestService({ clock });
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  member = await passwordKey(svc, 'mo');
  globex = await passwordKey(svc, 'gus');
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'alpha',
    version: '1.0.0',
    manifest: { limits: { monthlyBudgetUsd: 2.5, dailyTokens: 10_000 } },
  });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'beta', version: '1.0.0' });
  const alpha = (await getApp(svc.database.db, 'cell-acme', 'alpha')).id;
  const beta = (await getApp(svc.database.db, 'cell-acme', 'beta')).id;
  await recordUsage(svc.database.db, [
    { appId: alpha, meter: 'compute.live', amount: 90_000, at: new Date('2026-11-03T10:00:00Z') },
    { appId: alpha, meter: 'compute.model', amount: 30_000, at: new Date('2026-11-30T23:59:59Z') },
    { appId: alpha, meter: 'model.cost', amount: 1_250_000, at: new Date('2026-11-30T23:59:59Z') },
    { appId: alpha, meter: 'model.tokens', amount: 4000, at: new Date('2026-11-02T10:00:00Z') },
    { appId: alpha, meter: 'model.tokens', amount: 1000, at: new Date('2026-11-29T10:00:00Z') },
    { appId: alpha, meter: 'model.cost', amount: 2_000_000, at: new Date('2026-12-01T00:00:00Z') },
    { appId: alpha, meter: 'model.tokens', amount: 9000, at: new Date('2026-12-05T01:00:00Z') },
    { appId: beta, meter: 'compute.workflow', amount: 60_001, at: new Date('2026-11-15T00:00:00Z') },
  ]);
}, 60_000);
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

describe('prices and estimates', () => {
  it('serves the price list without a credential', async () => {
    const res = await svc.call('GET', `${B}/prices`);
    expect(res.status).toBe(200);
    expect(res.body.data.current).toMatchObject({ version: '2026-11-01', currency: 'USD', compute: { perMinuteMicroUsd: 2000 } });
    expect(res.body.data.lists.map((l: { version: string }) => l.version)).toEqual(['2026-11-01']);
  });

  it('estimates in integer micro-USD, rounding each line up, and names an unknown model’s path', async () => {
    const res = await svc.call('POST', `${B}/estimate`, {
      body: { computeMinutes: 100, modelCalls: [{ model: 'text-small', inputTokens: 1000, outputTokens: 1, calls: 3 }] },
      headers: bearer(member),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // 1000 × 0.15 USD/M = 150 micro; 1 × 0.6 USD/M = 0.6 → 1 micro; per call 151, three calls 453.
    expect(res.body.data).toEqual({
      priceListVersion: '2026-11-01',
      currency: 'USD',
      computeMicroUsd: 200_000,
      modelCalls: [{ model: 'text-small', calls: 3, costMicroUsd: 453 }],
      totalMicroUsd: 200_453,
    });
    const unknown = await svc.call('POST', `${B}/estimate`, {
      body: {
        modelCalls: [
          { model: 'text-small', inputTokens: 1, outputTokens: 1 },
          { model: 'nope', inputTokens: 1, outputTokens: 1 },
        ],
      },
      headers: bearer(member),
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'invalid_payload']);
    expect(unknown.body.error.details.problems[0].path).toBe('modelCalls.1.model');
    const strict = await svc.call('POST', `${B}/estimate`, { body: { computeMinutes: 1.5, extra: 1 }, headers: bearer(member) });
    expect(strict.status).toBe(400);
    expect((await svc.call('POST', `${B}/estimate`, { body: {} })).status).toBe(401);
  });
});

describe('records and summary', () => {
  it('bills each app per UTC month from the counters: compute at the month’s price list, model cost as metered', async () => {
    const res = await svc.call('GET', `${B}/cell-acme/records?from=2026-11&to=2026-12`, { headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.records).toEqual([
      {
        month: '2026-11',
        app: { namespace: 'cell-acme', slug: 'alpha' },
        priceListVersion: '2026-11-01',
        computeMs: 120_000,
        computeMicroUsd: 4000,
        modelTokens: 5000,
        modelMicroUsd: 1_250_000,
        totalMicroUsd: 1_254_000,
        budgetMicroUsd: 2_500_000,
      },
      {
        month: '2026-11',
        app: { namespace: 'cell-acme', slug: 'beta' },
        priceListVersion: '2026-11-01',
        computeMs: 60_001,
        computeMicroUsd: 2001,
        modelTokens: 0,
        modelMicroUsd: 0,
        totalMicroUsd: 2001,
        budgetMicroUsd: null,
      },
      {
        month: '2026-12',
        app: { namespace: 'cell-acme', slug: 'alpha' },
        priceListVersion: '2026-11-01',
        computeMs: 0,
        computeMicroUsd: 0,
        modelTokens: 9000,
        modelMicroUsd: 2_000_000,
        totalMicroUsd: 2_000_000,
        budgetMicroUsd: 2_500_000,
      },
    ]);
    const summary = await svc.call('GET', `${B}/cell-acme/summary?month=2026-11`, { headers: bearer(dev) });
    expect(summary.body.data).toMatchObject({ namespace: 'cell-acme', month: '2026-11', currency: 'USD', totalMicroUsd: 1_256_001 });
    expect(summary.body.data.apps).toEqual(res.body.data.records.slice(0, 2));
    const current = await svc.call('GET', `${B}/cell-acme/summary`, { headers: bearer(dev) });
    expect(current.body.data).toMatchObject({ month: '2026-12', totalMicroUsd: 2_000_000 });
  });

  it('refuses members, other companies, bad months and ranges over 24 months', async () => {
    for (const path of ['summary', 'records', 'check?slug=alpha&model=vision&inputTokens=1&outputTokens=1']) {
      expect((await svc.call('GET', `${B}/cell-acme/${path}`, { headers: bearer(member) })).status).toBe(403);
      expect((await svc.call('GET', `${B}/cell-acme/${path}`, { headers: bearer(globex) })).status).toBe(403);
    }
    expect((await svc.call('GET', `${B}/cell-acme/summary?month=2026-13`, { headers: bearer(dev) })).status).toBe(400);
    expect((await svc.call('GET', `${B}/cell-acme/records?from=2024-11&to=2026-11`, { headers: bearer(dev) })).status).toBe(400);
    expect((await svc.call('GET', `${B}/cell-acme/records?from=2026-12&to=2026-11`, { headers: bearer(dev) })).status).toBe(400);
    expect((await svc.call('GET', `${B}/cell-acme/records?from=2024-12&to=2026-11`, { headers: bearer(dev) })).status).toBe(200);
  });
});

describe('budget check', () => {
  it('says whether a call would pass the monthly budget or today’s tokens', async () => {
    const check = (q: string) => svc.call('GET', `${B}/cell-acme/check?${q}`, { headers: bearer(dev) });
    // Spent 2.000000 of 2.500000 USD; 9000 of 10,000 tokens today.
    const small = await check('slug=alpha&model=text-small&inputTokens=500&outputTokens=100');
    expect(small.status, JSON.stringify(small.body)).toBe(200);
    expect(small.body.data).toEqual({
      app: { namespace: 'cell-acme', slug: 'alpha' },
      month: '2026-12',
      spentMicroUsd: 2_000_000,
      callMicroUsd: 75 + 60,
      budgetMicroUsd: 2_500_000,
      tokensToday: 9000,
      dailyTokens: 10_000,
      wouldExceed: false,
      reasons: [],
    });
    const big = await check('slug=alpha&model=text-large&inputTokens=200000&outputTokens=1000');
    expect(big.body.data).toMatchObject({ callMicroUsd: 510_000, wouldExceed: true, reasons: ['monthlyBudgetUsd', 'dailyTokens'] });
    const noBudget = await check('slug=beta&model=text-large&inputTokens=200000&outputTokens=0');
    expect(noBudget.body.data).toMatchObject({ budgetMicroUsd: null, wouldExceed: false });
    expect((await check('slug=alpha&model=nope&inputTokens=1&outputTokens=1')).status).toBe(400);
    expect((await check('slug=missing&model=vision&inputTokens=1&outputTokens=1')).status).toBe(404);
  });
});
