import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../support/clock.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Groups over HTTP (spec G, Admin): create, get, list and search by name prefix, delete; members
// with expiration and the group's membership expiration policy; who may manage them; the security
// event log; hostile input.

const clock = new TestClock('2026-11-27T10:00:00Z');
let svc: TestService;
let op: string;
let dana: string;
let mo: string;
let gus: string;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;

beforeAll(async () => {
  svc = await startTestService({ clock });
  ({ op, accounts } = await seedCompanies(svc));
  dana = await passwordKey(svc, 'dana');
  mo = await passwordKey(svc, 'mo');
  gus = await passwordKey(svc, 'gus');
});
afterAll(() => svc.close());
beforeEach(async () => {
  clock.set('2026-11-27T10:00:00Z');
  await resetRateLimits(svc);
});

const call = (method: string, path: string, key: string, body?: unknown) =>
  svc.call(method, path, { ...(body === undefined ? {} : { body }), headers: bearer(key) });
const create = (name: string, key = dana, extra: object = {}) => call('POST', '/api/v1/admin/groups', key, { name, ...extra });
async function group(name: string, extra: object = {}): Promise<string> {
  const res = await create(name, dana, extra);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}
const members = (id: string, key = dana) => call('GET', `/api/v1/admin/groups/${id}/groupMembers`, key);
const add = (id: string, body: object, key = dana) => call('POST', `/api/v1/admin/groups/${id}/groupMembers/add`, key, body);

describe('groups', () => {
  it('creates, gets, lists by name and by prefix, refuses a duplicate name whatever its case, and deletes', async () => {
    const created = await create('Field Sales', dana, {
      description: 'People in the field',
      membershipExpirationPolicy: { maximumDurationDays: 30 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'Field Sales',
      description: 'People in the field',
      organization: 'cell-acme',
      membershipExpirationPolicy: { maximumDurationDays: 30 },
    });
    const id = created.body.data.id;
    expect(id).toMatch(/^grp_/);
    expect((await call('GET', `/api/v1/admin/groups/${id}`, dana)).body.data).toEqual(created.body.data);

    const dup = await create('field sales');
    expect([dup.status, dup.body.error.code]).toEqual([409, 'group_name_exists']);
    await group('Field Service');
    await group('Finance');

    const prefixed = await call('GET', '/api/v1/admin/groups?q=field%20s', dana);
    expect(prefixed.status).toBe(200);
    expect(prefixed.body.data.data.map((g: { name: string }) => g.name)).toEqual(['Field Sales', 'Field Service']);
    // A LIKE wildcard in the prefix is a literal character.
    expect((await call('GET', '/api/v1/admin/groups?q=%25', dana)).body.data.data).toEqual([]);

    // Pages continue after the previous page's last group.
    const first = await call('GET', '/api/v1/admin/groups?q=f&pageSize=2', dana);
    expect(first.body.data.data.map((g: { name: string }) => g.name)).toEqual(['Field Sales', 'Field Service']);
    const next = await call(
      'GET',
      `/api/v1/admin/groups?q=f&pageSize=2&pageToken=${encodeURIComponent(first.body.data.nextPageToken)}`,
      dana,
    );
    expect(next.body.data).toEqual({ data: [expect.objectContaining({ name: 'Finance' })], nextPageToken: null });

    const deleted = await call('DELETE', `/api/v1/admin/groups/${id}`, dana);
    expect([deleted.status, deleted.body.data]).toEqual([200, { deleted: true }]);
    const gone = await call('GET', `/api/v1/admin/groups/${id}`, dana);
    expect([gone.status, gone.body.error.code]).toEqual([404, 'group_not_found']);
    const again = await call('DELETE', `/api/v1/admin/groups/${id}`, dana);
    expect([again.status, again.body.error.code]).toEqual([404, 'group_not_found']);
    // The name is free again.
    expect((await create('Field Sales')).status).toBe(201);
  });

  it('keeps companies apart: another company’s groups do not exist for its developers; members may not manage groups', async () => {
    const id = await group('Acme only');
    for (const [method, path, body] of [
      ['GET', `/api/v1/admin/groups/${id}`],
      ['DELETE', `/api/v1/admin/groups/${id}`],
      ['GET', `/api/v1/admin/groups/${id}/groupMembers`],
      ['POST', `/api/v1/admin/groups/${id}/groupMembers/add`, { principalIds: [accounts.gus] }],
      ['POST', `/api/v1/admin/groups/${id}/groupMembers/remove`, { principalIds: [accounts.mo] }],
    ] as [string, string, unknown?][]) {
      const res = await call(method, path, gus, body);
      expect([res.status, res.body.error.code], `${method} ${path}`).toEqual([404, 'group_not_found']);
    }
    const theirs = await call('GET', '/api/v1/admin/groups?organization=cell-acme', gus);
    expect([theirs.status, theirs.body.error.code]).toEqual([403, 'forbidden']);
    const own = await call('GET', '/api/v1/admin/groups', gus);
    expect(own.body.data.data.map((g: { id: string }) => g.id)).not.toContain(id);
    const intoAcme = await create('Sneaky', gus, { organization: 'cell-acme' });
    expect([intoAcme.status, intoAcme.body.error.code]).toEqual([403, 'forbidden']);

    // Members of the company: refused at the door (a developer key is needed).
    for (const res of [await create('By a member', mo), await call('GET', `/api/v1/admin/groups/${id}`, mo)]) {
      expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
    }
    // A web session is not an admin credential.
    const cookie = await signIn(svc, 'dana');
    const web = await svc.call('POST', '/api/v1/admin/groups', { body: { name: 'Web' }, headers: browser(cookie, svc) });
    expect(web.status).toBe(401);
  });

  it('lets operators manage the groups of every company, and answers organization_not_found for none', async () => {
    const made = await create('Operators’ pick', op, { organization: 'cell-globex' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data.organization).toBe('cell-globex');
    expect((await call('GET', `/api/v1/admin/groups/${made.body.data.id}`, gus)).status).toBe(200);
    const acme = await call('GET', '/api/v1/admin/groups?organization=cell-acme', op);
    expect(acme.status).toBe(200);
    const none = await create('Nowhere', op, { organization: 'cell-nowhere' });
    expect([none.status, none.body.error.code]).toEqual([404, 'organization_not_found']);
  });
});

describe('members', () => {
  it('adds, lists and removes members, with an expiration; removing twice changes nothing', async () => {
    const id = await group('Members');
    const added = await add(id, { principalIds: [accounts.mo, accounts.gus], expiration: '2026-12-01T00:00:00Z' });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.data.data).toEqual(
      expect.arrayContaining([
        { principalId: accounts.mo, principalType: 'USER', username: 'mo', expiration: '2026-12-01T00:00:00.000Z' },
        { principalId: accounts.gus, principalType: 'USER', username: 'gus', expiration: '2026-12-01T00:00:00.000Z' },
      ]),
    );
    // Adding again sets the expiration (here: none).
    expect((await add(id, { principalIds: [accounts.mo] })).body.data.data).toEqual([
      { principalId: accounts.mo, principalType: 'USER', username: 'mo', expiration: null },
    ]);
    expect((await members(id)).body.data.data).toHaveLength(2);

    const removed = await call('POST', `/api/v1/admin/groups/${id}/groupMembers/remove`, dana, { principalIds: [accounts.gus] });
    expect([removed.status, removed.body.data]).toEqual([200, { removed: [accounts.gus] }]);
    const twice = await call('POST', `/api/v1/admin/groups/${id}/groupMembers/remove`, dana, { principalIds: [accounts.gus] });
    expect(twice.body.data).toEqual({ removed: [] });
    expect((await members(id)).body.data.data.map((m: { username: string }) => m.username)).toEqual(['mo']);

    // An ended membership is no longer listed.
    await add(id, { principalIds: [accounts.multi], expiration: '2026-11-28T00:00:00Z' });
    expect((await members(id)).body.data.data).toHaveLength(2);
    clock.set('2026-11-28T00:00:00Z');
    expect((await members(id)).body.data.data.map((m: { username: string }) => m.username)).toEqual(['mo']);
  });

  it('refuses a past expiration, one beyond the group’s policy, and unknown accounts; the policy’s maximum is the default', async () => {
    const id = await group('Temporary', { membershipExpirationPolicy: { maximumDurationDays: 7 } });
    const past = await add(id, { principalIds: [accounts.mo], expiration: '2026-11-27T09:59:59Z' });
    expect([past.status, past.body.error.code]).toEqual([422, 'invalid_group_membership_expiration']);
    const now = await add(id, { principalIds: [accounts.mo], expiration: '2026-11-27T10:00:00Z' });
    expect([now.status, now.body.error.code]).toEqual([422, 'invalid_group_membership_expiration']);
    const beyond = await add(id, { principalIds: [accounts.mo], expiration: '2026-12-05T10:00:00Z' });
    expect([beyond.status, beyond.body.error.code]).toEqual([422, 'invalid_group_membership_expiration']);
    const byDefault = await add(id, { principalIds: [accounts.mo] });
    expect(byDefault.body.data.data[0].expiration).toBe('2026-12-04T10:00:00.000Z');
    const unknown = await add(id, { principalIds: ['acc_000000000000000'] });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'principal_not_found']);
    const notAnAccount = await add(id, { principalIds: ['cell-acme'] });
    expect([notAnAccount.status, notAnAccount.body.error.code]).toEqual([400, 'invalid_payload']);
    expect((await members(id)).body.data.data).toHaveLength(1);
  });

  it('records every group and membership change in the security event log: who, what, when', async () => {
    const id = await group('Audited');
    await add(id, { principalIds: [accounts.mo] });
    await call('POST', `/api/v1/admin/groups/${id}/groupMembers/remove`, dana, { principalIds: [accounts.mo] });
    await call('DELETE', `/api/v1/admin/groups/${id}`, dana);
    const events = async (kind: string) =>
      ((await call('GET', `/api/v1/admin/security-events?kind=${kind}`, op)).body.data.events as { details: { groupId: string } }[]).filter(
        (e) => e.details.groupId === id,
      );
    expect(await events('group_created')).toEqual([
      expect.objectContaining({
        actorId: accounts.dana,
        accountId: null,
        details: { groupId: id, organization: 'cell-acme', name: 'Audited' },
      }),
    ]);
    expect(await events('group_member_added')).toEqual([
      expect.objectContaining({ actorId: accounts.dana, accountId: accounts.mo, at: expect.any(String) }),
    ]);
    expect(await events('group_member_removed')).toEqual([expect.objectContaining({ actorId: accounts.dana, accountId: accounts.mo })]);
    expect(await events('group_deleted')).toHaveLength(1);
  });

  it('changes nothing on a dry run', async () => {
    const id = await group('Dry');
    const res = await svc.call('POST', `/api/v1/admin/groups/${id}/groupMembers/add`, {
      body: { principalIds: [accounts.mo] },
      headers: { ...bearer(dana), 'x-svc-dry-run': 'true' },
    });
    expect(res.status).toBe(202);
    expect((await members(id)).body.data.data).toEqual([]);
  });
});

describe('hostile input', () => {
  it('never answers 5xx: NUL, __proto__ and constructor names, long names and descriptions, wildcard prefixes', async () => {
    const proto = await create('__proto__');
    expect(proto.status, JSON.stringify(proto.body)).toBe(201);
    expect(proto.body.data.name).toBe('__proto__');
    expect((await create('constructor')).status).toBe(201);
    const bodies: unknown[] = [
      { name: 'a\u0000b' },
      { name: 'x'.repeat(121) },
      { name: '   ' },
      { name: 'ok', description: 'y'.repeat(1001) },
      JSON.parse('{"name":"ok","__proto__":{"x":1}}'),
      JSON.parse('{"name":"ok","constructor":{"prototype":{"x":1}}}'),
      { name: 'ok', membershipExpirationPolicy: { maximumDurationDays: 0 } },
      { name: 'ok', organization: 'cell-acme\u0000' },
    ];
    for (const body of bodies) {
      const res = await call('POST', '/api/v1/admin/groups', dana, body);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
    }
    for (const q of ['%00', '%5C', '_', 'x'.repeat(121)]) {
      const res = await call('GET', `/api/v1/admin/groups?q=${q}`, dana);
      expect(res.status, q).toBeLessThan(500);
    }
    const badId = await call('GET', '/api/v1/admin/groups/__proto__', dana);
    expect([badId.status, badId.body.error.code]).toEqual([400, 'invalid_path']);
  });
});
