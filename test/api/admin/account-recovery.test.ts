import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, browser, createUser, PASSWORD, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Keys do not outlive account recovery: an operator's password reset, disabling an account
// and removing a license revoke keys for good; a person's own password change may too.

let svc: TestService;
let op: string;
let n = 0;

beforeAll(async () => {
  svc = await startTestService();
  ({ op } = await seedCompanies(svc));
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

/** A fresh developer of Acme (and member of Globex) with two keys, one per company. */
async function person() {
  const name = `p${++n}x`;
  const { id } = await createUser(svc, op, name, [
    { cellId: 'cell-acme', role: 'developer' },
    { cellId: 'cell-globex', role: 'member' },
  ]);
  return { id, name, acme: await passwordKey(svc, name, 'cell-acme'), globex: await passwordKey(svc, name, 'cell-globex') };
}

const me = (key: string) => svc.call('GET', '/api/v1/developer/me', { headers: bearer(key) });
const patch = (id: string, body: unknown) => svc.call('PATCH', `/api/v1/admin/users/${id}`, { body, headers: bearer(op) });
const keysOf = async (id: string) => (await svc.call('GET', `/api/v1/admin/users/${id}/keys`, { headers: bearer(op) })).body.data.keys;

async function expectRevoked(key: string, message: RegExp) {
  const res = await me(key);
  expect([res.status, res.body.error.code]).toEqual([401, 'unauthorized']);
  expect(res.body.error.message).toMatch(message);
}

describe('an operator’s password reset', () => {
  it('revokes every key of the account for good, also after the account is re-enabled', async () => {
    const p = await person();
    expect((await me(p.acme)).status).toBe(200);
    const reset = await patch(p.id, { password: 'a-brand-new-password-1' });
    expect(reset.status).toBe(200);
    await expectRevoked(p.acme, /operator reset the account’s password/);
    await expectRevoked(p.globex, /operator reset/);

    // Disable and re-enable: the old keys stay dead; a new login works.
    expect((await patch(p.id, { status: 'disabled' })).status).toBe(200);
    expect((await patch(p.id, { status: 'active' })).status).toBe(200);
    await expectRevoked(p.acme, /revoked/);
    expect((await me(await passwordKey(svc, p.name, 'cell-acme', 'a-brand-new-password-1'))).status).toBe(200);

    const keys = await keysOf(p.id);
    expect(keys.filter((k: { revokedReason: string }) => k.revokedReason === 'password_reset')).toHaveLength(2);
    expect(keys.find((k: { revokedAt: string | null }) => k.revokedAt === null)).toMatchObject({ company: { cellId: 'cell-acme' } });
  });

  it('a dry run revokes nothing', async () => {
    const p = await person();
    const dry = await svc.call('PATCH', `/api/v1/admin/users/${p.id}`, {
      body: { password: 'a-brand-new-password-1' },
      headers: { ...bearer(op), 'x-svc-dry-run': 'true' },
    });
    expect(dry.status).toBe(202);
    expect((await me(p.acme)).status).toBe(200);
  });
});

describe('disabling an account', () => {
  it('revokes its keys for good: re-enabling does not bring them back', async () => {
    const p = await person();
    await patch(p.id, { status: 'disabled' });
    await expectRevoked(p.acme, /account was disabled/);
    await patch(p.id, { status: 'active' });
    await expectRevoked(p.acme, /account was disabled/);
    await expectRevoked(p.globex, /account was disabled/);
  });
});

describe('removing a license', () => {
  it('revokes the keys for that company only, and granting it again does not bring them back', async () => {
    const p = await person();
    const removed = await svc.call('DELETE', `/api/v1/admin/users/${p.id}/organizations/cell-acme`, { headers: bearer(op) });
    expect(removed.status).toBe(200);
    await expectRevoked(p.acme, /license in its company was removed/);
    expect((await me(p.globex)).status).toBe(200);
    const regrant = await svc.call('PUT', `/api/v1/admin/users/${p.id}/organizations/cell-acme`, {
      body: { role: 'developer' },
      headers: bearer(op),
    });
    expect(regrant.status).toBe(200);
    await expectRevoked(p.acme, /license/);
  });
});

describe('an operator revoking an account’s keys', () => {
  it('revokes all, or those for one company, idempotently; the owner sees why', async () => {
    const p = await person();
    const acmeOnly = await svc.call('DELETE', `/api/v1/admin/users/${p.id}/keys?cellId=cell-acme`, { headers: bearer(op) });
    expect(acmeOnly.status).toBe(200);
    expect(acmeOnly.body.data.revokedKeyIds).toHaveLength(1);
    await expectRevoked(p.acme, /revoked by an operator/);
    expect((await me(p.globex)).status).toBe(200);

    const all = await svc.call('DELETE', `/api/v1/admin/users/${p.id}/keys`, { headers: bearer(op) });
    expect(all.body.data.revokedKeyIds).toHaveLength(1);
    await expectRevoked(p.globex, /revoked by an operator/);
    const again = await svc.call('DELETE', `/api/v1/admin/users/${p.id}/keys`, { headers: bearer(op) });
    expect([again.status, again.body.data.revokedKeyIds]).toEqual([200, []]);
  });

  it('answers user_not_found and organization_not_found by code', async () => {
    const p = await person();
    const noUser = await svc.call('DELETE', '/api/v1/admin/users/acc_000000000000000/keys', { headers: bearer(op) });
    expect([noUser.status, noUser.body.error.code]).toEqual([404, 'user_not_found']);
    const noCompany = await svc.call('DELETE', `/api/v1/admin/users/${p.id}/keys?cellId=cell-nowhere`, { headers: bearer(op) });
    expect([noCompany.status, noCompany.body.error.code]).toEqual([404, 'organization_not_found']);
    expect((await me(p.acme)).status).toBe(200);
  });
});

describe('a person’s own password change', () => {
  const change = (login: string, revokeKeys?: boolean) =>
    svc.call('POST', '/api/v1/web/password', {
      body: { login, currentPassword: PASSWORD, newPassword: `${PASSWORD}-2`, ...(revokeKeys === undefined ? {} : { revokeKeys }) },
      headers: { origin: svc.addresses.baseUrl },
    });

  it('keeps keys by default and ends the web sessions', async () => {
    const p = await person();
    const cookie = await signIn(svc, p.name);
    const res = await change(p.name);
    expect(res.body.data).toEqual({ changed: true, keysRevoked: 0 });
    expect((await me(p.acme)).status).toBe(200);
    const session = await svc.call('GET', '/api/v1/web/session', { headers: browser(cookie, svc) });
    expect(session.status).toBe(401);
  });

  it('revokes every key when asked', async () => {
    const p = await person();
    const res = await change(p.name, true);
    expect(res.body.data).toEqual({ changed: true, keysRevoked: 2 });
    await expectRevoked(p.acme, /password was changed/);
    await expectRevoked(p.globex, /password was changed/);
  });
});
