import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../support/clock.ts';
import { injected, rawGet, release, ticketCookie } from '../../support/hosting.ts';
import { bearer, createUser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// App tickets: issued with the entry page, renewed with themselves (up to 24 hours after expiry),
// admitting only their own app, ending with the account's keys.

const clock = new TestClock('2026-11-22T10:00:00Z');
let svc: TestService;
let op: string;
let dev: string;
const HOUR = 60;
const renewPath = (slug = 'hello', query = '?channel=production') => `/api/v1/developer/apps/cell-acme/${slug}/tickets${query}`;

beforeAll(async () => {
  svc = await startTestService({ clock });
  ({ op } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
  await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.0.0' });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'other', version: '1.0.0' });
}, 60_000);
afterAll(() => svc.close());
beforeEach(async () => {
  clock.set('2026-11-22T10:00:00Z');
  await resetRateLimits(svc);
});

/** Opens the app as `login` (a member of cell-acme by default) and returns the page's ticket. */
async function ticketOf(login: string, slug = 'hello'): Promise<string> {
  const res = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/${slug}`, { cookie: await signIn(svc, login) });
  expect(res.status).toBe(200);
  return injected(res.text).ticket;
}

let people = 0;
async function newMember(): Promise<{ id: string; username: string }> {
  return createUser(svc, op, `visitor${++people}`, [{ cellId: 'cell-acme', role: 'member' }]);
}

const renew = (ticket: string, path = renewPath(), headers: Record<string, string> = {}) =>
  svc.call('POST', path, { headers: { ...bearer(ticket), ...headers } });

describe('renewal', () => {
  it('gives a new 8-hour ticket for the same channel and version, which renews in turn', async () => {
    const ticket = await ticketOf('mo');
    const res = await renew(ticket);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toEqual({
      ticket: expect.stringMatching(/^svc-at-/),
      expiresAt: '2026-11-22T18:00:00.000Z',
      channel: 'production',
      version: '1.0.0',
    });
    expect(res.body.data.ticket).not.toBe(ticket);
    expect((await renew(res.body.data.ticket)).status).toBe(201);
  });

  it('works up to 24 hours after expiry, not later', async () => {
    const ticket = await ticketOf('mo');
    const other = await ticketOf('mo');
    clock.advance({ minutes: 8 * HOUR + 24 * HOUR - 1 });
    expect((await renew(ticket)).status).toBe(201);
    clock.advance({ minutes: 1 });
    const late = await renew(other);
    expect(late.status).toBe(401);
    expect(late.body.error.message).toContain('more than 24 hours ago');
  });

  it('stores only hashes: the plaintext is nowhere in the table', async () => {
    const ticket = await ticketOf('mo');
    const rows = await svc.database.db.selectFrom('app_tickets').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(ticket.slice(7));
  });

  it('dry run: 202 with the plan, no ticket shown and none stored', async () => {
    const ticket = await ticketOf('mo');
    const count = async () =>
      (
        await svc.database.db
          .selectFrom('app_tickets')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = await count();
    const res = await renew(ticket, renewPath(), { 'x-svc-dry-run': 'true' });
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({
      dryRun: true,
      plan: { expiresAt: '2026-11-22T18:00:00.000Z', channel: 'production', version: '1.0.0' },
    });
    expect(await count()).toBe(before);
  });
});

describe('what a ticket admits', () => {
  it('only its own app and channel', async () => {
    const ticket = await ticketOf('mo');
    const other = await renew(ticket, renewPath('other'));
    expect(other.status).toBe(403);
    expect(other.body.error.message).toContain('admits only cell-acme/hello');
    expect((await renew(ticket, renewPath('hello', '?channel=test'))).status).toBe(403);
  });

  it('is refused where the route table admits no ticket, and the renewal route takes nothing else', async () => {
    const ticket = await ticketOf('mo');
    // A valid credential of a kind the route does not admit: 403.
    expect((await svc.call('GET', '/api/v1/developer/apps/cell-acme/hello', { headers: bearer(ticket) })).status).toBe(403);
    expect((await svc.call('POST', renewPath(), { headers: bearer(dev) })).status).toBe(401);
    // No anonymous tickets: without one the answer is 401.
    expect((await svc.call('POST', renewPath())).status).toBe(401);
  });

  it('goes when the account’s keys are revoked, and with a disabled account', async () => {
    const revoked = await newMember();
    const ticket = await ticketOf(revoked.username);
    expect((await svc.call('DELETE', `/api/v1/admin/users/${revoked.id}/keys`, { headers: bearer(op) })).status).toBe(200);
    const res = await renew(ticket);
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain('revoked');

    const disabled = await newMember();
    const other = await ticketOf(disabled.username);
    const patch = await svc.call('PATCH', `/api/v1/admin/users/${disabled.id}`, { body: { status: 'disabled' }, headers: bearer(op) });
    expect(patch.status).toBe(200);
    expect((await renew(other)).status).toBe(401);
  });

  it('as the page’s cookie, admits the version’s files until revoked: the revoke stops them at once, not 30 seconds later', async () => {
    const visitor = await newMember();
    const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/hello`, { cookie: await signIn(svc, visitor.username) });
    const cookie = ticketCookie(page);
    const file = `${injected(page.text).base}index.html`;
    expect((await rawGet(file, { cookie })).status).toBe(200);
    await svc.call('DELETE', `/api/v1/admin/users/${visitor.id}/keys`, { headers: bearer(op) });
    // The clock stands still: no recheck interval hides the revoke.
    expect((await rawGet(file, { cookie })).status).toBe(302);
  });

  it('as the page’s cookie, keeps admitting the files while the page renews its ticket (the cookie was refused 60 s after the first renewal), and stops when the newest renewal expires', async () => {
    const visitor = await newMember();
    const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/hello`, { cookie: await signIn(svc, visitor.username) });
    const { ticket, base } = injected(page.text);
    const cookie = ticketCookie(page);
    const file = `${base}index.html`;
    const first = await renew(ticket);
    expect(first.status).toBe(201);
    clock.advance({ seconds: 61 });
    expect((await rawGet(file, { cookie })).status).toBe(200);
    // Past the opening ticket's 8 hours, the page having renewed again in time.
    clock.advance({ minutes: 7 * HOUR });
    const second = await renew(first.body.data.ticket);
    expect(second.status).toBe(201);
    clock.advance({ minutes: 2 * HOUR });
    expect((await rawGet(file, { cookie })).status).toBe(200);
    // The page stopped renewing: its newest ticket has expired.
    clock.advance({ minutes: 7 * HOUR });
    expect((await rawGet(file, { cookie })).status).toBe(302);
  });

  it('as the page’s cookie after a renewal, stops admitting at once when the renewed ticket is revoked', async () => {
    const visitor = await newMember();
    const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/hello`, { cookie: await signIn(svc, visitor.username) });
    const { ticket, base } = injected(page.text);
    const cookie = ticketCookie(page);
    const file = `${base}index.html`;
    expect((await renew(ticket)).status).toBe(201);
    expect((await rawGet(file, { cookie })).status).toBe(200);
    await svc.call('DELETE', `/api/v1/admin/users/${visitor.id}/keys`, { headers: bearer(op) });
    expect((await rawGet(file, { cookie })).status).toBe(302);
  });

  it('a ticket opened with a key ends when its owner revokes that one key', async () => {
    const visitor = await newMember();
    const key = await passwordKey(svc, visitor.username);
    const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/hello`, bearer(key));
    const { ticket } = injected(page.text);
    const cookie = ticketCookie(page);
    const file = `${injected(page.text).base}index.html`;
    expect((await renew(ticket)).status).toBe(201);
    const [row] = await svc.database.db.selectFrom('developer_keys').select('id').where('account_id', '=', visitor.id).execute();
    expect((await svc.call('DELETE', `/api/v1/developer/keys/${row!.id}`, { headers: bearer(key) })).status).toBe(200);
    const me = await svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(ticket) });
    expect([me.status, me.body.error.message]).toEqual([401, expect.stringContaining('key this app was opened with')]);
    expect((await rawGet(file, { cookie })).status).toBe(302);
  });

  it('a ticket opened with a web session ends when the person signs out', async () => {
    const visitor = await newMember();
    const session = await signIn(svc, visitor.username);
    const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/hello`, { cookie: session });
    const { ticket } = injected(page.text);
    const renewed = await renew(ticket);
    expect(renewed.status).toBe(201);
    const out = await svc.call('DELETE', '/api/v1/web/sessions/current', { headers: { cookie: session, origin: svc.addresses.baseUrl } });
    expect(out.status, JSON.stringify(out.body)).toBeLessThan(300);
    // The renewed ticket derives from the same session.
    const me = await svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(renewed.body.data.ticket) });
    expect([me.status, me.body.error.message]).toEqual([401, expect.stringContaining('web session this app was opened with has ended')]);
  });

  it('renewing retires the old ticket: it serves requests in flight for 60 seconds, then 401, and never renews again', async () => {
    const ticket = await ticketOf('mo');
    const renewed = await renew(ticket);
    expect(renewed.status).toBe(201);
    const me = (t: string) => svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(t) });
    expect((await me(ticket)).status).toBe(200);
    const again = await renew(ticket);
    expect([again.status, again.body.error.message]).toEqual([401, expect.stringContaining('renewed already')]);
    clock.advance({ seconds: 61 });
    expect((await me(ticket)).status).toBe(401);
    expect((await me(renewed.body.data.ticket)).status).toBe(200);
  });
  it('re-checks access: an account that lost its license since is refused', async () => {
    const moved = await newMember();
    const ticket = await ticketOf(moved.username);
    // Direct change (no key revocation): the access check itself must refuse.
    await svc.database.db.deleteFrom('licenses').where('account_id', '=', moved.id).execute();
    const res = await renew(ticket);
    expect(res.status).toBe(403);
    expect(res.body.error.details).toEqual({ reason: 'not_member' });
  });
});

describe('opening the entry page', () => {
  const openHello = (cookie: string) => rawGet(`${svc.addresses.productionBase}/cell-acme/apps/hello`, { cookie });
  const ticketsOf = (accountId: string) =>
    svc.database.db.selectFrom('app_tickets').select('id').where('account_id', '=', accountId).execute();

  it('40 opens in a row reuse one ticket and make one usage/open record that counts them', async () => {
    const visitor = await newMember();
    const cookie = await signIn(svc, visitor.username);
    const pages = [];
    for (let i = 0; i < 40; i++) pages.push(await openHello(cookie));
    expect(pages.map((p) => p.status)).toEqual(Array(40).fill(200));
    expect(new Set(pages.map((p) => injected(p.text).ticket)).size).toBe(1);
    expect(await ticketsOf(visitor.id)).toHaveLength(1);
    await svc.deps.opens.flush();
    const opens = await svc.database.db
      .selectFrom('app_log_events')
      .select('data')
      .where('name', '=', 'open')
      .where('account_id', '=', visitor.id)
      .execute();
    // One record per minute: the opens may straddle a minute's end.
    expect(opens.reduce((n, o) => n + (o.data as { opens: number }).opens, 0)).toBe(40);
    expect(opens.length).toBeLessThanOrEqual(2);
  });

  it('opens that each need a new ticket: 30 a minute, then 429 rate_limited with Retry-After', async () => {
    const visitor = await newMember();
    const cookie = await signIn(svc, visitor.username);
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof rawGet>> | undefined;
    for (let i = 0; i < 40; i++) {
      // Any change ends every reuse (here a notification alone), so each open is judged anew.
      await sql`SELECT pg_notify('svc_principals', '')`.execute(svc.database.db);
      const res = await openHello(cookie);
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
    }
    expect(statuses.filter((s) => s === 200).length).toBe(30);
    expect(statuses.slice(30)).toEqual(Array(10).fill(429));
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);
    expect(await ticketsOf(visitor.id)).toHaveLength(30);
    // Another app of the same person has a limit of its own.
    expect((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/other`, { cookie })).status).toBe(200);
  });

  it('a reused open ends with what it rested on: a revoked license refuses the next open at once', async () => {
    const visitor = await newMember();
    const cookie = await signIn(svc, visitor.username);
    expect((await openHello(cookie)).status).toBe(200);
    expect((await openHello(cookie)).status).toBe(200);
    await svc.database.db.deleteFrom('licenses').where('account_id', '=', visitor.id).execute();
    expect((await openHello(cookie)).status).toBe(403);
  });
});

describe('from the app page’s opaque origin', () => {
  it('answers the CORS preflight and every answer for any origin', async () => {
    const pre = await svc.call('OPTIONS', renewPath(), { headers: { origin: 'null', 'access-control-request-method': 'POST' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');
    const refused = await svc.call('POST', renewPath(), { headers: { origin: 'null' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    // Routes that take no ticket do not open up.
    const me = await svc.call('GET', '/api/v1/developer/me', { headers: { origin: 'null', ...bearer(dev) } });
    expect(me.headers.get('access-control-allow-origin')).toBeNull();
  });
});
