import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getApp } from '../../../domain/apps/repository.ts';
import { recordUsage } from '../../../domain/usage/record-usage.ts';
import { TestClock } from '../../support/clock.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Caps, deploy warnings, the usage view and the gates over real HTTP: ticket requests refused with
// 429 quota_exhausted once the month's compute minutes are used up (until the 1st of next UTC
// month), and requestsPerMinute per source IP on requests made with the app's ticket.

const clock = new TestClock('2026-11-30T23:00:00Z');
let svc: TestService;
let dev: string;
let member: string;
let globex: string;
const usagePath = (slug: string) => `/api/v1/developer/apps/cell-acme/${slug}/usage`;
const renewPath = (slug: string) => `/api/v1/developer/apps/cell-acme/${slug}/tickets`;
const pageUrl = (slug: string) => `${svc.addresses.productionBase}/cell-acme/apps/${slug}`;

async function appId(slug: string) {
  return (await getApp(svc.database.db, 'cell-acme', slug)).id;
}
async function openAs(login: string, slug: string) {
  return rawGet(pageUrl(slug), { cookie: await signIn(svc, login) });
}

beforeAll(async () => {
  svc = await startTestService({ clock });
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  member = await passwordKey(svc, 'mo');
  globex = await passwordKey(svc, 'gus');
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'metered',
    version: '1.0.0',
    manifest: { limits: { computeMinutesPerMonth: 10 } },
  });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'busy', version: '1.0.0', manifest: { limits: { requestsPerMinute: 3 } } });
}, 60_000);
afterAll(() => svc.close());
beforeEach(async () => {
  clock.set('2026-11-30T23:00:00Z');
  await resetRateLimits(svc);
  await svc.database.db.deleteFrom('usage_counters').execute();
});

describe('caps and deploy warnings', () => {
  it('warns (never blocks) for every cap above its default, and not for caps at or below it', async () => {
    const manifest = { manifestVersion: 1, slug: 'generous', version: '1.0.0', title: 'Generous' };
    const files = [{ path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>g</title>' }];
    const res = await svc.call('POST', '/api/v1/developer/apps/cell-acme/generous/versions', {
      body: { manifest: { ...manifest, limits: { computeMinutesPerMonth: 4000, dailyTokens: 1_000_000, notificationsPerDay: 5 } }, files },
      headers: bearer(dev),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.warnings).toEqual([
      {
        path: 'manifest.limits.computeMinutesPerMonth',
        code: 'limit_above_default',
        message: 'computeMinutesPerMonth is 4000, above its default 2000',
      },
    ]);
  });

  it('shows every cap with the defaults filled in', async () => {
    const res = await svc.call('GET', usagePath('busy'), { headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.limits).toEqual({
      computeMinutesPerMonth: 2000,
      dailyTokens: 1_000_000,
      requestsPerMinute: 3,
      realtimeSessionsPerDay: 100,
      notificationsPerDay: 20,
      worldCreditsPerDay: 0,
    });
  });
});

describe('GET …/usage', () => {
  it('splits this month’s compute minutes, warns at 80 percent and counts each increment in the period of its own time', async () => {
    const id = await appId('metered');
    await recordUsage(svc.database.db, [
      { appId: id, meter: 'compute.live', amount: 4 * 60_000, at: new Date('2026-11-30T22:00:00Z') },
      { appId: id, meter: 'compute.workflow', amount: 3 * 60_000 + 30_000, at: new Date('2026-11-12T08:00:00Z') },
      { appId: id, meter: 'compute.model', amount: 30_000, at: new Date('2026-11-30T23:59:59.999Z') },
      // The next month's: not this month's use.
      { appId: id, meter: 'compute.live', amount: 60_000, at: new Date('2026-12-01T00:00:00Z') },
      { appId: id, meter: 'model.tokens', amount: 1234, at: new Date('2026-11-30T01:00:00Z') },
      { appId: id, meter: 'model.tokens', amount: 99, at: new Date('2026-11-29T23:59:59Z') },
    ]);
    const res = await svc.call('GET', usagePath('metered'), { headers: bearer(dev) });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      app: { namespace: 'cell-acme', slug: 'metered' },
      month: '2026-11',
      day: '2026-11-30',
      computeMinutes: {
        used: 8,
        live: 4,
        workflow: 3.5,
        model: 0.5,
        limit: 10,
        warning: true,
        exhausted: false,
        resetsAt: '2026-12-01T00:00:00.000Z',
      },
      tokensToday: { used: 1234, limit: 1_000_000, exhausted: false },
      notificationsToday: { sent: 0, blocked: 0, limit: 20 },
      modelCostThisMonth: { spentMicroUsd: 0, budgetMicroUsd: null, exhausted: false },
      nextScheduledRun: null,
      schedule: null,
      emailConfigured: false,
    });

    clock.set('2026-12-01T00:00:00Z');
    const next = await svc.call('GET', usagePath('metered'), { headers: bearer(dev) });
    expect(next.body.data.month).toBe('2026-12');
    expect(next.body.data.computeMinutes).toMatchObject({
      used: 1,
      warning: false,
      exhausted: false,
      resetsAt: '2027-01-01T00:00:00.000Z',
    });
    expect(next.body.data.tokensToday.used).toBe(0);
  });

  it('admits developer keys of the company and the app’s own ticket; refuses members, other companies and other apps’ tickets', async () => {
    expect((await svc.call('GET', usagePath('metered'), { headers: bearer(dev) })).status).toBe(200);
    const asMember = await svc.call('GET', usagePath('metered'), { headers: bearer(member) });
    expect([asMember.status, asMember.body.error.code]).toEqual([403, 'forbidden']);
    const asGlobex = await svc.call('GET', usagePath('metered'), { headers: bearer(globex) });
    expect([asGlobex.status, asGlobex.body.error.code]).toEqual([403, 'forbidden']);
    expect((await svc.call('GET', usagePath('metered'))).status).toBe(401);

    const { ticket } = injected((await openAs('mo', 'metered')).text);
    const own = await svc.call('GET', usagePath('metered'), { headers: bearer(ticket) });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.data.app.slug).toBe('metered');
    expect((await svc.call('GET', usagePath('busy'), { headers: bearer(ticket) })).status).toBe(403);
    expect((await svc.call('GET', '/api/v1/developer/apps/cell-acme/nothing-here/usage', { headers: bearer(dev) })).status).toBe(404);
  });
});

describe('quota exhaustion', () => {
  it('refuses ticket requests with 429 quota_exhausted until 00:00 UTC on the 1st, then admits them again', async () => {
    const id = await appId('metered');
    const cookie = await signIn(svc, 'mo');
    const { ticket } = injected((await rawGet(pageUrl('metered'), { cookie })).text);
    await recordUsage(svc.database.db, [{ appId: id, meter: 'compute.workflow', amount: 10 * 60_000, at: clock.now() }]);

    const renewed = await svc.call('POST', renewPath('metered'), { headers: bearer(ticket) });
    expect([renewed.status, renewed.body.error.code]).toEqual([429, 'quota_exhausted']);
    expect(renewed.headers.get('retry-after')).toBe(String(3600));
    expect(renewed.body.error.details).toMatchObject({
      limit: 'computeMinutesPerMonth',
      limitMinutes: 10,
      resetsAt: '2026-12-01T00:00:00.000Z',
    });
    const page = await openAs('mo', 'metered');
    expect(page.status).toBe(429);
    // The same sign-in again, whose open would hand out its live ticket again: a ticket request all the same.
    expect((await rawGet(pageUrl('metered'), { cookie })).status).toBe(429);
    expect(page.headers['retry-after']).toBe(String(3600));
    const usage = await svc.call('GET', usagePath('metered'), { headers: bearer(ticket) });
    expect(usage.body.data.computeMinutes).toMatchObject({ used: 10, exhausted: true, warning: true });
    // Another app of the company is not affected.
    expect((await openAs('mo', 'busy')).status).toBe(200);

    clock.set('2026-11-30T23:59:59.999Z');
    expect((await svc.call('POST', renewPath('metered'), { headers: bearer(ticket) })).status).toBe(429);
    clock.set('2026-12-01T00:00:00Z');
    const after = await svc.call('POST', renewPath('metered'), { headers: bearer(ticket) });
    expect(after.status, JSON.stringify(after.body)).toBe(201);
    expect((await openAs('mo', 'metered')).status).toBe(200);
  });
});

describe('requestsPerMinute', () => {
  it('answers 429 rate_limited with Retry-After past the app’s cap per source IP and minute, only on its ticket’s requests', async () => {
    const { ticket } = injected((await openAs('mo', 'busy')).text);
    clock.set('2026-11-30T23:10:20Z');
    for (let i = 0; i < 3; i++) expect((await svc.call('GET', usagePath('busy'), { headers: bearer(ticket) })).status).toBe(200);
    const refused = await svc.call('GET', usagePath('busy'), { headers: bearer(ticket) });
    expect([refused.status, refused.body.error.code]).toEqual([429, 'rate_limited']);
    expect(refused.headers.get('retry-after')).toBe('40');
    // Developer keys are no app requests; another app has its own budget.
    expect((await svc.call('GET', usagePath('busy'), { headers: bearer(dev) })).status).toBe(200);
    const other = injected((await openAs('mo', 'metered')).text).ticket;
    expect((await svc.call('GET', usagePath('metered'), { headers: bearer(other) })).status).toBe(200);

    clock.set('2026-11-30T23:11:00Z');
    expect((await svc.call('GET', usagePath('busy'), { headers: bearer(ticket) })).status).toBe(200);
  });
});
