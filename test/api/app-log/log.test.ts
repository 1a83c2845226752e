import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../support/clock.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// The app log over HTTP (spec E): an app opened, used, given feedback and an error shows all four
// in events and summary; feedback moves by the table; limits; service records; pagination.

const clock = new TestClock('2026-11-22T10:00:00Z');
let svc: TestService;
let dev: string;
let memberKey: string;
let gusKey: string;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;
const LOG = '/api/v1/developer/log/cell-acme';

beforeAll(async () => {
  svc = await startTestService({ clock });
  ({ accounts } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  gusKey = await passwordKey(svc, 'gus');
  await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.0.0' });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'other', version: '1.0.0' });
}, 60_000);
afterAll(() => svc.close());
beforeEach(async () => {
  clock.set('2026-11-22T10:00:00Z');
  await resetRateLimits(svc);
});

/** Opens hello as `login` and returns the app ticket the page carries. */
async function openHello(login: string): Promise<string> {
  const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/hello`, { cookie: await signIn(svc, login) });
  expect(page.status).toBe(200);
  return injected(page.text).ticket;
}
const send = (credential: string, body: object, headers: Record<string, string> = {}) =>
  svc.call('POST', `${LOG}/events`, { body, headers: { ...bearer(credential), ...headers } });
const list = (query: string, key = dev) => svc.call('GET', `${LOG}/events?${query}`, { headers: bearer(key) });

describe('an app opened, used, given feedback and an error', () => {
  it('shows all four in events and in the summary; feedback moves open → planned → done', async () => {
    const ticket = await openHello('mo');
    // Opened again within the minute: one record that counts both opens.
    await openHello('mo');
    await svc.deps.opens.flush();
    const sent = await send(ticket, {
      events: [
        { kind: 'usage', name: 'clicked-save', data: { button: 'save', note: 'call +49 30 1234567 or mail mo@example.com' } },
        { kind: 'usage', name: 'mailed mo@example.com' },
        { kind: 'feedback', topic: 'search', rating: 4, message: 'Please add a filter', object: { type: 'acme.Order', pk: 17 } },
        { kind: 'error', error: { name: 'TypeError', message: 'x is undefined', stack: 'at save' }, context: { where: 'save-button' } },
      ],
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.data).toMatchObject({ stored: 4, counted: 0 });

    const events = (await list('slug=hello')).body.data.events as {
      id: string;
      kind: string;
      name: string;
      source: string;
      data: unknown;
      visitor: unknown;
    }[];
    const byKind = (kind: string, name: string) => events.find((e) => e.kind === kind && e.name === name);
    expect(byKind('usage', 'open')).toMatchObject({
      source: 'service',
      visitor: { id: accounts.mo, username: 'mo' },
      version: '1.0.0',
      channel: 'production',
      data: { viaShare: null, opens: 2 },
    });
    expect(byKind('usage', 'clicked-save')).toMatchObject({
      source: 'app',
      version: '1.0.0',
      data: { button: 'save', note: 'call [phone] or mail [email]' },
    });
    expect(byKind('usage', 'mailed [email]')).toBeDefined();
    expect(byKind('feedback', 'search')).toMatchObject({
      status: 'open',
      data: { rating: 4, message: 'Please add a filter', object: { type: 'acme.Order', pk: 17 } },
    });
    expect(byKind('error', 'TypeError')).toMatchObject({
      data: { error: { message: 'x is undefined', stack: 'at save' }, context: { where: 'save-button' } },
    });
    // Deploy, enter test and publish of the version read as release records.
    expect(events.filter((e) => e.kind === 'release').map((e) => e.name)).toEqual(['publish', 'enter_test', 'deploy']);

    const summary = await svc.call('GET', `${LOG}/summary?slug=hello&days=7`, { headers: bearer(dev) });
    expect(summary.status, JSON.stringify(summary.body)).toBe(200);
    const s = summary.body.data;
    expect(s.counts).toMatchObject({ usage: 4, feedback: 1, error: 1, release: 3 });
    expect(s.visitors).toBe(1);
    expect(s.topUsage).toEqual(
      expect.arrayContaining([
        { name: 'open', count: 2 },
        { name: 'clicked-save', count: 1 },
      ]),
    );
    expect(s.usageByDay).toHaveLength(7);
    expect(s.usageByDay.at(-1)).toEqual({ day: '2026-11-22', count: 4 });
    expect(s.openFeedback.count).toBe(1);
    expect(s.errors.recent[0].name).toBe('TypeError');
    expect(s.versions).toEqual([{ version: '1.0.0', build: 1, status: 'live', tested: true }]);
    expect(s.releases.map((r: { action: string }) => r.action)).toEqual(['enter_test', 'publish']);
    expect(s.semanticVersions).toEqual({ latest: '1.0.0', live: '1.0.0', test: '1.0.0', all: ['1.0.0'] });

    const feedbackId = byKind('feedback', 'search')!.id;
    const move = (status: string) => svc.call('PATCH', `${LOG}/events/${feedbackId}`, { body: { status }, headers: bearer(dev) });
    expect((await move('done')).status).toBe(409);
    const planned = await move('planned');
    expect(planned.status, JSON.stringify(planned.body)).toBe(200);
    expect(planned.body.data).toMatchObject({ status: 'planned', statusBy: accounts.dana, statusAt: '2026-11-22T10:00:00.000Z' });
    const backwards = await move('planned');
    expect(backwards.status).toBe(409);
    expect(backwards.body.error.details).toMatchObject({ from: 'planned', to: 'planned', allowed: ['done', 'dismissed'] });
    expect((await move('open')).status).toBe(400);
    expect((await move('done')).body.data.status).toBe('done');
    expect((await move('dismissed')).status).toBe(409);
    expect((await list('slug=hello&kind=feedback&status=done')).body.data.events.map((e: { id: string }) => e.id)).toEqual([feedbackId]);
    const usage = (await list('slug=hello&kind=usage')).body.data.events as { kind: string }[];
    expect(usage.length).toBeGreaterThanOrEqual(2);
    expect(usage.every((e) => e.kind === 'usage')).toBe(true);
  });
});

describe('limits', () => {
  it('refuses the 121st event of a visitor in a minute with 429 and Retry-After', async () => {
    clock.set('2026-11-22T11:00:10Z');
    const ticket = await openHello('multi');
    const batch = (n: number) => ({ events: Array.from({ length: n }, (_, i) => ({ kind: 'usage', name: `e${i}` })) });
    for (let i = 0; i < 2; i++) expect((await send(ticket, batch(50))).status).toBe(201);
    expect((await send(ticket, batch(20))).status).toBe(201);
    const refused = await send(ticket, batch(1));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.headers.get('retry-after'), JSON.stringify(refused.body)).toBe('50');
    clock.set('2026-11-22T11:01:00Z');
    expect((await send(ticket, batch(1))).status).toBe(201);
  });

  it('refuses extra data over 4 KB naming the limit, and unknown fields with their path', async () => {
    const big = await send(dev, { slug: 'hello', events: [{ kind: 'usage', name: 'x', data: { blob: 'a'.repeat(4100) } }] });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: 'payload_too_large', details: { limit: 4096 } });
    const typo = await send(dev, { slug: 'hello', events: [{ kind: 'feedback', topic: 't', ratting: 3 }] });
    expect(typo.status).toBe(400);
    expect(JSON.stringify(typo.body.error.details)).toContain('events[0].ratting');
  });

  it('stores 10 captured errors per class, app, visitor and day; counts the rest', async () => {
    const ticket = await openHello('dana');
    const errors = (name: string, n: number) => ({
      events: Array.from({ length: n }, () => ({ kind: 'error', error: { name, message: 'boom' } })),
    });
    expect((await send(ticket, errors('RangeError', 8))).body.data).toMatchObject({ stored: 8, counted: 0 });
    expect((await send(ticket, errors('RangeError', 5))).body.data).toMatchObject({ stored: 2, counted: 3 });
    expect((await send(ticket, errors('SyntaxError', 1))).body.data).toMatchObject({ stored: 1, counted: 0 });
    clock.set('2026-11-23T00:00:01Z');
    expect((await send(await openHello('dana'), errors('RangeError', 1))).body.data).toMatchObject({ stored: 1, counted: 0 });
    const summary = await svc.call('GET', `${LOG}/summary?slug=hello&days=2`, { headers: bearer(dev) });
    expect(summary.body.data.errors.counted).toBe(3);
    // Visitors of the window: mo, multi and dana came on the 22nd, only dana on the 23rd.
    expect(summary.body.data.visitors).toBe(3);
    const today = await svc.call('GET', `${LOG}/summary?slug=hello&days=1`, { headers: bearer(dev) });
    expect(today.body.data.visitors).toBe(1);
  });

  it('a dry run stores nothing', async () => {
    const before = (await list('slug=other&kind=usage')).body.data.events.length;
    const res = await send(dev, { slug: 'other', events: [{ kind: 'usage', name: 'dry' }] }, { 'x-svc-dry-run': 'true' });
    expect(res.status).toBe(202);
    expect((await list('slug=other&kind=usage')).body.data.events.length).toBe(before);
  });
});

describe('who may send and read', () => {
  it('a member key of the company may send for a named app; another company’s key may not', async () => {
    expect((await send(memberKey, { slug: 'other', events: [{ kind: 'usage', name: 'cli' }] })).status).toBe(201);
    expect((await send(memberKey, { events: [{ kind: 'usage', name: 'cli' }] })).status).toBe(400);
    expect((await send(gusKey, { slug: 'other', events: [{ kind: 'usage', name: 'cli' }] })).status).toBe(403);
  });

  it('a ticket sends only for its own app and namespace', async () => {
    const ticket = await openHello('mo');
    expect((await send(ticket, { slug: 'other', events: [{ kind: 'usage', name: 'x' }] })).status).toBe(403);
    const elsewhere = await svc.call('POST', '/api/v1/developer/log/cell-globex/events', {
      body: { events: [{ kind: 'usage', name: 'x' }] },
      headers: bearer(ticket),
    });
    expect(elsewhere.status).toBe(403);
  });

  it('reading is for developers: member keys, tickets and other companies are refused; a developer session reads', async () => {
    expect((await list('slug=hello', memberKey)).status).toBe(403);
    expect((await list('slug=hello', gusKey)).status).toBe(403);
    expect((await list('slug=hello', await openHello('mo'))).status).toBe(403);
    const session = await svc.call('GET', `${LOG}/events?slug=hello&limit=1`, { headers: browser(await signIn(svc, 'dana'), svc) });
    expect(session.status).toBe(200);
    const member = await svc.call('GET', `${LOG}/events?slug=hello&limit=1`, { headers: browser(await signIn(svc, 'mo'), svc) });
    expect(member.status).toBe(403);
  });
});

describe('service records and listing', () => {
  it('share and revoke write share/* records with object and role', async () => {
    const res = await svc.call('POST', '/api/v1/developer/shares', {
      body: { namespace: 'cell-acme', slug: 'other', audience: 'users', account: 'gus' },
      headers: bearer(dev),
    });
    clock.set('2026-11-22T10:00:01Z');
    await svc.call('DELETE', `/api/v1/developer/shares/${res.body.data.share.id}?namespace=cell-acme&slug=other`, { headers: bearer(dev) });
    const shares = (await list('slug=other&kind=share')).body.data.events;
    expect(shares.map((e: { name: string; data: { object: string; role: string } }) => [e.name, e.data.object, e.data.role])).toEqual([
      ['revoke', accounts.gus, 'editor'],
      ['create', accounts.gus, 'editor'],
    ]);
  });

  it('pages with a cursor, newest first, without gaps or repeats; filters by visitor, username, name, version and time', async () => {
    clock.set('2026-11-24T09:00:00Z');
    const names = Array.from({ length: 7 }, (_, i) => ({ kind: 'usage', name: `page-${i}` }));
    for (const [i, event] of names.entries()) {
      clock.set(`2026-11-24T09:00:0${i}Z`);
      await send(dev, { slug: 'other', events: [event] });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(
        `slug=other&kind=usage&visitor=${accounts.dana}&from=2026-11-24T00:00:00Z&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      seen.push(...res.body.data.events.map((e: { name: string }) => e.name));
      cursor = res.body.data.nextCursor;
    } while (cursor);
    expect(seen).toEqual(names.map((n) => n.name).reverse());
    expect((await list('slug=other&name=page-3')).body.data.events).toHaveLength(1);
    // By the username the records show, in any case: the same events as by account id.
    const byName = (await list('slug=other&kind=usage&username=DANA&from=2026-11-24T00:00:00Z&limit=200')).body.data.events;
    expect(byName.map((e: { name: string }) => e.name)).toEqual(names.map((n) => n.name).reverse());
    expect((await list('slug=other&username=nobody')).body.data.events).toHaveLength(0);
    expect((await list('slug=other&to=2026-11-24T00:00:00Z&name=page-3')).body.data.events).toHaveLength(0);
    expect((await list('slug=hello&version=1.0.0&kind=usage&name=open')).body.data.events.length).toBeGreaterThan(0);
    expect((await list('slug=hello&version=9.9.9')).body.data.events).toHaveLength(0);
    expect((await list('cursor=bm9wZQ')).status).toBe(400);
    // Without a slug: every app of the namespace.
    const apps = new Set((await list('limit=200')).body.data.events.map((e: { app: string }) => e.app));
    expect([...apps].sort()).toEqual(['hello', 'other']);
  });
});
