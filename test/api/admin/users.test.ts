import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Users and organizations (spec G, Admin): a company's admins and developers read its people and
// its organization, operators every company's; nobody else's people are ever shown; the current
// user; attributes are never editable.

let svc: TestService;
let op: string;
let dana: string;
let mo: string;
let gus: string;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;

beforeAll(async () => {
  svc = await startTestService();
  ({ op, accounts } = await seedCompanies(svc));
  dana = await passwordKey(svc, 'dana');
  mo = await passwordKey(svc, 'mo');
  gus = await passwordKey(svc, 'gus');
  // A display name, as member import records one.
  await svc.database.db.updateTable('accounts').set({ display_name: 'Maureen Olive Smith' }).where('id', '=', accounts.mo).execute();
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const get = (path: string, key: string) => svc.call('GET', path, { headers: bearer(key) });
const usernames = (res: { body: { data: { users: { username: string }[] } } }) => res.body.data.users.map((u) => u.username).sort();

describe('users', () => {
  it('lists a company’s people to its developers, each with that company’s license only; never another company’s people', async () => {
    const acme = await get('/api/v1/admin/users', dana);
    expect(acme.status, JSON.stringify(acme.body)).toBe(200);
    expect(usernames(acme)).toEqual(['dana', 'mo', 'multi']);
    const multi = acme.body.data.users.find((u: { username: string }) => u.username === 'multi');
    expect(multi.licenses).toEqual([{ cellId: 'cell-acme', name: 'Acme', role: 'member', admin: false }]);
    expect(multi.attributes).toEqual({
      'svc:username': ['multi'],
      'svc:email': ['multi@example.com'],
      'svc:organizations': ['cell-acme'],
      'svc:role:cell-acme': ['member'],
    });
    expect(JSON.stringify(acme.body)).not.toContain('cell-globex');
    expect(usernames(await get('/api/v1/admin/users?q=gus', dana))).toEqual([]);
    expect(usernames(await get('/api/v1/admin/users', gus))).toEqual(['gus', 'multi']);

    const other = await get('/api/v1/admin/users?organization=cell-globex', dana);
    expect([other.status, other.body.error.code]).toEqual([403, 'forbidden']);
    const member = await get('/api/v1/admin/users', mo);
    expect([member.status, member.body.error.code]).toEqual([403, 'forbidden']);
  });

  it('lets operators list every account, or one company’s people', async () => {
    const all = await get('/api/v1/admin/users?limit=200', op);
    expect(usernames(all)).toEqual(expect.arrayContaining(['dana', 'gus', 'mo', 'multi']));
    expect(usernames(await get('/api/v1/admin/users?organization=cell-globex', op))).toEqual(['gus', 'multi']);
    const none = await get('/api/v1/admin/users?organization=cell-nowhere', op);
    expect([none.status, none.body.error.code]).toEqual([404, 'organization_not_found']);
  });

  it('gets one user in the spec’s shape; a person of another company is user_not_found', async () => {
    const res = await get(`/api/v1/admin/users/${accounts.mo}`, dana);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      id: accounts.mo,
      username: 'mo',
      givenName: 'Maureen',
      familyName: 'Olive Smith',
      email: 'mo@example.com',
      organization: 'cell-acme',
      status: 'active',
      attributes: {
        'svc:username': ['mo'],
        'svc:email': ['mo@example.com'],
        'svc:organizations': ['cell-acme'],
        'svc:role:cell-acme': ['member'],
      },
    });
    for (const id of [accounts.gus, 'acc_000000000000000']) {
      const hidden = await get(`/api/v1/admin/users/${id}`, dana);
      expect([hidden.status, hidden.body.error.code]).toEqual([404, 'user_not_found']);
    }
    const byOperator = await get(`/api/v1/admin/users/${accounts.multi}`, op);
    expect(byOperator.body.data.attributes['svc:organizations']).toEqual(['cell-acme', 'cell-globex']);
    expect(byOperator.body.data).toMatchObject({ givenName: null, familyName: null, organization: 'cell-acme' });
  });

  it('answers the current user to any person’s key', async () => {
    const me = await get('/api/v1/admin/users/me', mo);
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.data).toMatchObject({ id: accounts.mo, username: 'mo', organization: 'cell-acme', status: 'active' });
    expect((await get('/api/v1/admin/users/me', gus)).body.data.id).toBe(accounts.gus);
    expect((await svc.call('GET', '/api/v1/admin/users/me')).status).toBe(401);
  });

  it('never edits attributes: attributes_not_editable, and nothing changes', async () => {
    const res = await svc.call('PATCH', `/api/v1/admin/users/${accounts.mo}`, {
      body: { attributes: { 'svc:region': ['emea'] } },
      headers: bearer(op),
    });
    expect([res.status, res.body.error.code]).toEqual([422, 'attributes_not_editable']);
    const withStatus = await svc.call('PATCH', `/api/v1/admin/users/${accounts.mo}`, {
      body: { status: 'disabled', attributes: {} },
      headers: bearer(op),
    });
    expect([withStatus.status, withStatus.body.error.code]).toEqual([422, 'attributes_not_editable']);
    expect((await get(`/api/v1/admin/users/${accounts.mo}`, op)).body.data.status).toBe('active');
  });
});

describe('organizations', () => {
  it('shows a company to its developers and operators; another company is organization_not_found; members are refused', async () => {
    const own = await get('/api/v1/admin/organizations/cell-acme', dana);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.data).toMatchObject({ cellId: 'cell-acme', name: 'Acme' });
    const other = await get('/api/v1/admin/organizations/cell-globex', dana);
    expect([other.status, other.body.error.code]).toEqual([404, 'organization_not_found']);
    const none = await get('/api/v1/admin/organizations/cell-nowhere', dana);
    expect([none.status, none.body.error.code]).toEqual([404, 'organization_not_found']);
    expect((await get('/api/v1/admin/organizations/cell-globex', op)).status).toBe(200);
    const member = await get('/api/v1/admin/organizations/cell-acme', mo);
    expect([member.status, member.body.error.code]).toEqual([403, 'forbidden']);
  });
});
