import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { snapshotService } from '../../support/db-snapshot.ts';
import { bearer, browser, createUser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, TEST_OPERATOR, type TestService } from '../../support/service.ts';

let svc: TestService;
let op: string;

beforeAll(async () => {
  svc = await startTestService();
  ({ op } = await seedCompanies(svc));
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

describe('authorization of operator endpoints', () => {
  const calls: [string, string, unknown?][] = [
    ['POST', '/api/v1/admin/organizations', { cellId: 'cell-x', name: 'X' }],
    ['POST', '/api/v1/admin/users', { username: 'x1', email: 'x1@example.com' }],
    ['PATCH', '/api/v1/admin/users/acc_000000000000000', { status: 'disabled' }],
    ['PUT', '/api/v1/admin/users/acc_000000000000000/organizations/cell-acme', { role: 'member' }],
    ['DELETE', '/api/v1/admin/users/acc_000000000000000/organizations/cell-acme'],
    ['GET', '/api/v1/admin/users/acc_000000000000000/keys'],
    ['DELETE', '/api/v1/admin/users/acc_000000000000000/keys'],
    ['GET', '/api/v1/admin/security-events'],
  ];

  it.each(calls)('%s %s: 401 without a credential, 403 for a company developer or member', async (method, path, body) => {
    const none = await svc.call(method, path, { body });
    expect([none.status, none.body.error.code]).toEqual([401, 'unauthorized']);
    for (const login of ['dana', 'mo']) {
      const res = await svc.call(method, path, { body, headers: bearer(await passwordKey(svc, login)) });
      expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
    }
  });

  it('refuses an operator’s web session: admin routes take an operator key only', async () => {
    const cookie = await signIn(svc, TEST_OPERATOR.login, TEST_OPERATOR.password);
    const read = await svc.call('GET', '/api/v1/admin/users', { headers: { cookie } });
    expect([read.status, read.body.error.code]).toEqual([401, 'unauthorized']);
    const write = await svc.call('POST', '/api/v1/admin/organizations', {
      body: { cellId: 'cell-web', name: 'W' },
      headers: browser(cookie, svc),
    });
    expect([write.status, write.body.error.code]).toEqual([401, 'unauthorized']);
  });
});

describe('organizations', () => {
  it('creates one, refuses a duplicate and a bad cell id, reads it by cell id or id with its members', async () => {
    const created = await svc.call('POST', '/api/v1/admin/organizations', {
      body: { cellId: 'cell-initech', name: 'Initech' },
      headers: bearer(op),
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ cellId: 'cell-initech', name: 'Initech', members: [] });
    const dup = await svc.call('POST', '/api/v1/admin/organizations', {
      body: { cellId: 'cell-initech', name: 'Again' },
      headers: bearer(op),
    });
    expect([dup.status, dup.body.error.code]).toEqual([409, 'conflict']);
    const bad = await svc.call('POST', '/api/v1/admin/organizations', { body: { cellId: 'Initech', name: 'x' }, headers: bearer(op) });
    expect(bad.body.error.details.problems[0].path).toBe('cellId');

    const byCell = await svc.call('GET', '/api/v1/admin/organizations/cell-acme', { headers: bearer(op) });
    expect(byCell.body.data.members.map((m: { username: string; role: string; admin: boolean }) => [m.username, m.role, m.admin])).toEqual([
      ['dana', 'developer', false],
      ['mo', 'member', false],
      ['multi', 'member', false],
    ]);
    const byId = await svc.call('GET', `/api/v1/admin/organizations/${byCell.body.data.id}`, { headers: bearer(op) });
    expect(byId.body.data.cellId).toBe('cell-acme');
    const missing = await svc.call('GET', '/api/v1/admin/organizations/cell-nope', { headers: bearer(op) });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'organization_not_found']);
  });
});

describe('users', () => {
  it('creates an account with licenses; without a password it is pending and cannot sign in', async () => {
    const res = await svc.call('POST', '/api/v1/admin/users', {
      body: { username: 'newbie', email: 'Newbie@Example.com', licenses: [{ cellId: 'cell-acme', role: 'member' }] },
      headers: bearer(op),
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      username: 'newbie',
      status: 'pending',
      emailVerified: false,
      licenses: [{ cellId: 'cell-acme', name: 'Acme', role: 'member', admin: false }],
    });
    expect(res.body.data.id).toMatch(/^acc_/);
    expect(JSON.stringify(res.body)).not.toMatch(/hash|scrypt/);
    const login = await svc.call('POST', '/api/v1/developer/password-tokens', { body: { login: 'newbie', password: 'anything' } });
    expect(login.body.error.code).toBe('invalid_credentials');
  });

  it('refuses duplicate usernames and emails case-insensitively, unknown organizations, weak passwords', async () => {
    const dupName = await svc.call('POST', '/api/v1/admin/users', {
      body: { username: 'DANA', email: 'other@example.com' },
      headers: bearer(op),
    });
    expect([dupName.status, dupName.body.error.details]).toEqual([409, { field: 'username' }]);
    const dupMail = await svc.call('POST', '/api/v1/admin/users', {
      body: { username: 'dana2', email: 'DANA@example.com' },
      headers: bearer(op),
    });
    expect([dupMail.status, dupMail.body.error.details]).toEqual([409, { field: 'email' }]);
    const org = await svc.call('POST', '/api/v1/admin/users', {
      body: { username: 'orphan', email: 'orphan@example.com', licenses: [{ cellId: 'cell-nowhere', role: 'member' }] },
      headers: bearer(op),
    });
    expect([org.status, org.body.error.code]).toEqual([404, 'organization_not_found']);
    expect((await svc.call('GET', '/api/v1/admin/users?q=orphan', { headers: bearer(op) })).body.data.users).toEqual([]);
    const weak = await svc.call('POST', '/api/v1/admin/users', {
      body: { username: 'weak', email: 'weak@example.com', password: 'short' },
      headers: bearer(op),
    });
    expect(weak.body.error.details.problems).toEqual([{ path: 'password', code: 'too_small', message: 'at least 12 characters' }]);
  });

  it('a dry run of user creation changes nothing', async () => {
    const before = await snapshotService(svc);
    const res = await svc.call('POST', '/api/v1/admin/users', {
      body: {
        username: 'ghost',
        email: 'ghost@example.com',
        password: 'long-enough-password',
        licenses: [{ cellId: 'cell-acme', role: 'developer' }],
      },
      headers: { ...bearer(op), 'x-svc-dry-run': 'true' },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.plan).toMatchObject({ username: 'ghost', status: 'active' });
    const { ['table:developer_keys']: _k1, ...b } = before;
    const { ['table:developer_keys']: _k2, ...a } = await snapshotService(svc);
    expect(a).toEqual(b); // only last_used_at of the operator's key may move
  });

  it('lists accounts in pages, filtered by part of a username or email', async () => {
    for (const n of ['page-a', 'page-b', 'page-c']) await createUser(svc, op, n, []);
    const first = await svc.call('GET', '/api/v1/admin/users?q=page-&limit=2', { headers: bearer(op) });
    expect(first.body.data.users.map((u: { username: string }) => u.username)).toEqual(['page-a', 'page-b']);
    expect(first.body.data.next).toBe('page-b');
    const second = await svc.call('GET', `/api/v1/admin/users?q=page-&limit=2&after=${first.body.data.next}`, { headers: bearer(op) });
    expect(second.body.data).toMatchObject({ users: [{ username: 'page-c' }], next: null });
    const bad = await svc.call('GET', '/api/v1/admin/users?limit=0&sort=name', { headers: bearer(op) });
    expect(bad.body.error.details.problems.map((p: { path: string }) => p.path).sort()).toEqual(['query.limit', 'query.sort']);
  });

  it('changes licenses with PUT and removes them idempotently with DELETE', async () => {
    const user = await createUser(svc, op, 'mover', []);
    const put = await svc.call('PUT', `/api/v1/admin/users/${user.id}/organizations/cell-acme`, {
      body: { role: 'developer', admin: true },
      headers: bearer(op),
    });
    expect(put.body.data).toMatchObject({ created: true, licenses: [{ cellId: 'cell-acme', role: 'developer', admin: true }] });
    const change = await svc.call('PUT', `/api/v1/admin/users/${user.id}/organizations/cell-acme`, {
      body: { role: 'member' },
      headers: bearer(op),
    });
    expect(change.body.data).toMatchObject({ created: false, licenses: [{ role: 'member', admin: false }] });
    const del = await svc.call('DELETE', `/api/v1/admin/users/${user.id}/organizations/cell-acme`, { headers: bearer(op) });
    expect(del.body.data).toMatchObject({ removed: true, licenses: [] });
    const again = await svc.call('DELETE', `/api/v1/admin/users/${user.id}/organizations/cell-acme`, { headers: bearer(op) });
    expect(again.body.data.removed).toBe(false);
    const unknown = await svc.call('PUT', '/api/v1/admin/users/acc_000000000000000/organizations/cell-acme', {
      body: { role: 'member' },
      headers: bearer(op),
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'user_not_found']);
  });

  it('a password reset by an operator ends the account’s web sessions', async () => {
    const user = await createUser(svc, op, 'reset-me', [{ cellId: 'cell-acme', role: 'member' }]);
    const cookie = await signIn(svc, 'reset-me');
    await svc.call('PATCH', `/api/v1/admin/users/${user.id}`, { body: { password: 'a-brand-new-password' }, headers: bearer(op) });
    expect((await svc.call('GET', '/api/v1/web/session', { headers: { cookie } })).body.error.code).toBe('invalid_session');
    expect((await signIn(svc, 'reset-me', 'a-brand-new-password')).length).toBeGreaterThan(0);
  });

  it('disabling ends sessions and keys; enabling a pending account needs a password', async () => {
    const user = await createUser(svc, op, 'disable-me', [{ cellId: 'cell-acme', role: 'member' }]);
    const cookie = await signIn(svc, 'disable-me');
    const res = await svc.call('PATCH', `/api/v1/admin/users/${user.id}`, { body: { status: 'disabled' }, headers: bearer(op) });
    expect(res.body.data.status).toBe('disabled');
    expect((await svc.call('GET', '/api/v1/web/session', { headers: { cookie } })).body.error.code).toBe('invalid_session');

    const pending = (
      await svc.call('POST', '/api/v1/admin/users', { body: { username: 'pend', email: 'pend@example.com' }, headers: bearer(op) })
    ).body.data;
    const noPassword = await svc.call('PATCH', `/api/v1/admin/users/${pending.id}`, { body: { status: 'active' }, headers: bearer(op) });
    expect(noPassword.body.error.details.problems[0].path).toBe('password');
    const withPassword = await svc.call('PATCH', `/api/v1/admin/users/${pending.id}`, {
      body: { status: 'active', password: 'a-fine-long-password', emailVerified: true },
      headers: bearer(op),
    });
    expect(withPassword.body.data).toMatchObject({ status: 'active', emailVerified: true });
    const empty = await svc.call('PATCH', `/api/v1/admin/users/${pending.id}`, { body: {}, headers: bearer(op) });
    expect(empty.status).toBe(400);
  });
});
