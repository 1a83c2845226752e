import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheFamily, LISTENER_NAME, startPrincipalCache } from '../../../domain/keys/principal-cache.ts';
import { injected, rawGet, release, ticketCookie } from '../../support/hosting.ts';
import { bearer, browser, createOrganization, createUser, operatorKey, passwordKey, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { type StartedProcess, startProcess } from '../../support/process.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Two processes over one PostgreSQL, each caching the principals behind keys: a change made
// through one (or straight in the database) takes effect in the other on the very next request,
// although that process had the key's principal in its cache.

let a: TestService;
let b: StartedProcess;
let op: string;

beforeAll(async () => {
  a = await startTestService();
  b = await startProcess(['api'], { DATABASE_URL: a.database.url });
  op = await operatorKey(a);
  await createOrganization(a, op, 'cell-acme', 'Acme');
}, 60_000);
afterAll(async () => {
  b?.child.kill('SIGTERM');
  await b?.exited;
  await a?.close();
});

/** GET /me on process B, twice, so its cache holds the key before the change. */
async function meOnB(key: string) {
  const res = await fetch(`${b.ready}/api/v1/developer/me`, { headers: bearer(key) });
  return { status: res.status, body: (await res.json()) as any };
}
async function cachedOnB(key: string) {
  await meOnB(key);
  const res = await meOnB(key);
  expect(res.status).toBe(200);
  return res.body.data;
}

let n = 0;
async function developer(role: 'developer' | 'member' = 'developer') {
  const username = `cache-${++n}`;
  const { id } = await createUser(a, op, username, [{ cellId: 'cell-acme', role }]);
  return { id, key: await passwordKey(a, username) };
}

describe('principal cache across processes', () => {
  it('a key revoked through process A is refused by process B at once', async () => {
    const { key } = await developer();
    await cachedOnB(key);
    const keys = await a.call('GET', '/api/v1/developer/keys', { headers: bearer(key) });
    const res = await a.call('DELETE', `/api/v1/developer/keys/${keys.body.data.keys[0].keyId}`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    const after = await meOnB(key);
    expect(after.status).toBe(401);
    expect(after.body.error.message).toMatch(/revoked by its owner/);
  });

  it('removing the license refuses the key in process B at once', async () => {
    const { id, key } = await developer();
    await cachedOnB(key);
    expect((await a.call('DELETE', `/api/v1/admin/users/${id}/organizations/cell-acme`, { headers: bearer(op) })).status).toBe(200);
    expect((await meOnB(key)).status).toBe(401);
  });

  it('a role change shows in process B at once', async () => {
    const { id, key } = await developer();
    expect((await cachedOnB(key)).role).toBe('developer');
    const res = await a.call('PUT', `/api/v1/admin/users/${id}/organizations/cell-acme`, { body: { role: 'member' }, headers: bearer(op) });
    expect(res.status).toBe(200);
    const after = await meOnB(key);
    expect(after.status).toBe(200);
    expect(after.body.data.role).toBe('member');
    expect(after.body.data.writableNamespaces).toEqual([]);
  });

  it('disabling the account refuses its key in process B at once', async () => {
    const { id, key } = await developer();
    await cachedOnB(key);
    expect((await a.call('PATCH', `/api/v1/admin/users/${id}`, { body: { status: 'disabled' }, headers: bearer(op) })).status).toBe(200);
    expect((await meOnB(key)).status).toBe(401);
  });

  it('a change written straight in the database (no use case) reaches both processes', async () => {
    const { key } = await developer();
    await cachedOnB(key);
    expect((await a.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).status).toBe(200);
    await sql`UPDATE companies SET name = 'Acme Renamed' WHERE cell_id = 'cell-acme'`.execute(a.database.db);
    expect((await meOnB(key)).body.data.company.name).toBe('Acme Renamed');
    expect((await a.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).body.data.company.name).toBe('Acme Renamed');
  });

  it('a publish through process A takes the superseded version’s _v/ files offline in process B at once, although B had its online versions cached', async () => {
    const { key } = await developer();
    const app = { namespace: 'cell-acme', slug: 'cached' };
    const onB = (url: string) => rawGet(url, bearer(key));
    await release(a, key, { ...app, version: '1.0.0' });
    const v1 = injected((await onB(`${b.ready}/p/cell-acme/apps/cached`)).text).base;
    expect((await onB(`${v1}index.html`)).status).toBe(200);
    await release(a, key, { ...app, version: '2.0.0' });
    // v1 is v2's rollback target: still online, and B's cache now holds that answer.
    expect((await onB(`${v1}index.html`)).status).toBe(200);
    expect((await onB(`${v1}index.html`)).status).toBe(200);
    await release(a, key, { ...app, version: '3.0.0' });
    expect((await onB(`${v1}index.html`)).status).toBe(404);
  });

  it('removing a group member through process A refuses, in process B, the files of a page opened through the group’s share at once', async () => {
    const { key } = await developer();
    const { id: memberId } = await createUser(a, op, `cache-${++n}`, [{ cellId: 'cell-acme', role: 'member' }]);
    const slug = `grouped-${n}`;
    await release(a, key, { namespace: 'cell-acme', slug, version: '1.0.0', manifest: { auth: { access: 'restricted' } } });
    const group = await a.call('POST', '/api/v1/admin/groups', { body: { name: slug }, headers: bearer(key) });
    const members = `/api/v1/admin/groups/${group.body.data.id}/groupMembers`;
    expect((await a.call('POST', `${members}/add`, { body: { principalIds: [memberId] }, headers: bearer(key) })).status).toBe(200);
    const share = { namespace: 'cell-acme', slug, audience: 'users', account: group.body.data.id };
    expect((await a.call('POST', '/api/v1/developer/shares', { body: share, headers: bearer(key) })).status).toBe(201);

    const page = await rawGet(`${b.ready}/p/cell-acme/apps/${slug}`, { cookie: await signIn(a, `cache-${n}`) });
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    const cookie = ticketCookie(page);
    const file = `${injected(page.text).base}index.html`;
    // Twice: B's cache now holds the ticket cookie's admission.
    expect((await rawGet(file, { cookie })).status).toBe(200);
    expect((await rawGet(file, { cookie })).status).toBe(200);
    expect((await a.call('POST', `${members}/remove`, { body: { principalIds: [memberId] }, headers: bearer(key) })).status).toBe(200);
    expect((await rawGet(file, { cookie })).status).not.toBe(200);
  });

  it('a marking role given or a group membership ended through process A changes, in process B, what a developer reads at once', async () => {
    const admin = await developer();
    const reader = await developer();
    const call = (method: string, path: string, body?: unknown) => a.call(method, path, { body, headers: bearer(admin.key) });
    expect((await call('POST', '/api/v1/developer/semantic/cell-acme/types', SALES)).status).toBe(200);
    const category = await call('POST', '/api/v1/admin/markingCategories', { name: `Cache ${n}`, categoryType: 'CONJUNCTIVE' });
    const marking = await call('POST', '/api/v1/admin/markings', {
      categoryId: category.body.data.id,
      name: 'Cached',
      initialRoleAssignments: [{ principalType: 'USER', principalId: admin.id, role: 'ADMINISTER' }],
    });
    expect(marking.status, JSON.stringify(marking.body)).toBe(201);
    const rid = (await call('GET', '/api/v1/ontologies/cell-acme/objectTypes/sales.Order')).body.data.rid;
    expect((await call('POST', `/api/v1/filesystem/resources/${rid}/addMarkings`, { markingIds: [marking.body.data.id] })).status).toBe(
      200,
    );
    // Twice on B: its cache now holds the reader's (empty) clearance.
    const onB = async () =>
      (await fetch(`${b.ready}/api/v1/ontologies/cell-acme/objectTypes/sales.Order`, { headers: bearer(reader.key) })).status;
    expect(await onB()).toBe(404);
    expect(await onB()).toBe(404);

    const made = await call('POST', '/api/v1/admin/groups', { name: `Cleared ${n}` });
    const members = `/api/v1/admin/groups/${made.body.data.id}/groupMembers`;
    expect((await call('POST', `${members}/add`, { principalIds: [reader.id] })).status).toBe(200);
    // B caches the membership without a role: only the role's own NOTIFY can clear the reader.
    expect(await onB()).toBe(404);
    expect(await onB()).toBe(404);
    const roles = `/api/v1/admin/markings/${marking.body.data.id}/roleAssignments`;
    expect(
      (await call('POST', `${roles}/add`, { roleAssignments: [{ principalType: 'GROUP', principalId: made.body.data.id, role: 'USE' }] }))
        .status,
    ).toBe(200);
    expect(await onB()).toBe(200);
    expect(await onB()).toBe(200);
    expect((await call('POST', `${members}/remove`, { principalIds: [reader.id] })).status).toBe(200);
    expect(await onB()).toBe(404);
  });

  it('app pages’ calls with a ticket on process B follow, at once, a channel move and a marking made through process A, and a sign-out through A ends the ticket and the web session on B', async () => {
    const { id: developerId, key } = await developer();
    const member = `cache-${++n}`;
    await createUser(a, op, member, [{ cellId: 'cell-acme', role: 'member' }]);
    const slug = `ticketed-${n}`;
    await release(a, key, { namespace: 'cell-acme', slug, version: '1.0.0' });
    const cookie = await signIn(a, member);
    const ticketOnB = async () => {
      const page = await rawGet(`${b.ready}/p/cell-acme/apps/${slug}`, { cookie });
      expect(page.status, page.text.slice(0, 300)).toBe(200);
      return injected(page.text).ticket;
    };
    /** auth/me on B with the ticket, twice: the second is answered from B's caches when nothing changed. */
    const meOnBWith = async (ticket: string) => {
      const statuses = [];
      for (let i = 0; i < 2; i++) statuses.push((await fetch(`${b.ready}/api/v1/developer/auth/me`, { headers: bearer(ticket) })).status);
      return statuses;
    };
    const ticket = await ticketOnB();
    expect(await meOnBWith(ticket)).toEqual([200, 200]);
    // A new version for developers and named accounts only: the member's ticket no longer admits auth/me.
    await release(a, key, { namespace: 'cell-acme', slug, version: '2.0.0', manifest: { auth: { access: 'restricted' } } });
    expect(await meOnBWith(ticket)).toEqual([403, 403]);
    await release(a, key, { namespace: 'cell-acme', slug, version: '3.0.0' });
    const second = await ticketOnB();
    expect(await meOnBWith(second)).toEqual([200, 200]);

    // A marking on the app that the member is not cleared for.
    const call = (method: string, path: string, body?: unknown) => a.call(method, path, { body, headers: bearer(key) });
    const category = await call('POST', '/api/v1/admin/markingCategories', { name: `Ticket cache ${n}`, categoryType: 'CONJUNCTIVE' });
    const marking = await call('POST', '/api/v1/admin/markings', {
      categoryId: category.body.data.id,
      name: 'Ticketed',
      initialRoleAssignments: [{ principalType: 'USER', principalId: developerId, role: 'ADMINISTER' }],
    });
    expect(marking.status, JSON.stringify(marking.body)).toBe(201);
    const rid = `ri.workshop.svc.app.cell-acme.${slug}`;
    const marked = await call('POST', `/api/v1/filesystem/resources/${rid}/addMarkings`, { markingIds: [marking.body.data.id] });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    expect(await meOnBWith(second)).toEqual([403, 403]);
    expect((await call('POST', `/api/v1/filesystem/resources/${rid}/removeMarkings`, { markingIds: [marking.body.data.id] })).status).toBe(
      200,
    );
    expect(await meOnBWith(second)).toEqual([200, 200]);

    // B has the session cached too (the page was opened with it).
    const sessionOnB = async () => (await fetch(`${b.ready}/api/v1/web/session`, { headers: { cookie } })).status;
    expect(await sessionOnB()).toBe(200);
    const out = await a.call('DELETE', '/api/v1/web/sessions/current', { headers: browser(cookie, a) });
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect(await sessionOnB()).toBe(401);
    expect(await meOnBWith(second)).toEqual([401, 401]);
  });

  it('records key use off the request path, at most once a minute per key', async () => {
    const { id, key } = await developer();
    const lastUsed = async () =>
      (await a.database.db.selectFrom('developer_keys').select('last_used_at').where('account_id', '=', id).executeTakeFirstOrThrow())
        .last_used_at;
    expect(await lastUsed()).toBeNull();
    expect((await a.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).status).toBe(200);
    await a.deps.keyUses.flush();
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    expect((await a.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).status).toBe(200);
    await a.deps.keyUses.flush();
    expect(await lastUsed()).toEqual(first);
  });
});

describe('principal cache without its listener', () => {
  it('serves nothing while the listener is lost, and caches again once it has reconnected', async () => {
    const cache = await startPrincipalCache({ databaseUrl: a.database.url, logger: pino({ level: 'silent' }) });
    try {
      const family = cacheFamily<{ n: number }>('test-entry');
      const entry = { n: 1 };
      cache.set(family, 'h', cache.generation(), entry);
      expect(await cache.get(family, 'h')).toBe(entry);
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = ${LISTENER_NAME} AND datname = current_database()`.execute(a.database.db);
      // Notifications may have been missed while it was gone: the old entries never come back.
      await expect.poll(() => cache.get(family, 'h')).toBeUndefined();
      cache.set(family, 'h', cache.generation(), entry);
      await expect
        .poll(
          async () => {
            cache.set(family, 'h2', cache.generation(), entry);
            return cache.get(family, 'h2');
          },
          { timeout: 10_000 },
        )
        .toBe(entry);
      expect(await cache.get(family, 'h')).toBeUndefined();
    } finally {
      await cache.stop();
    }
  });
});
