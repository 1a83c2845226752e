import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, browser, createUser, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// A person approves a device login in the browser as a developer; before the CLI polls, an
// operator demotes them, removes their license or disables the account. docs/operators/identity.md: "A key acts for
// one company with the role it was issued with, never above the account's role there today:
// demoting a developer makes their keys act as a member, removing the license or disabling the
// account makes them fail with 401 at once." So the poll issues a key with the role of the moment
// of issuance (member after a demotion, for good: a later promotion does not raise it), and after
// a removal or a disabling it issues no key at all: access_denied, for good.

let svc: TestService;
let op: string;
let counter = 0;

beforeAll(async () => {
  svc = await startTestService();
  ({ op } = await seedCompanies(svc));
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

/** A developer of Acme who has approved a fresh device login in the browser; the CLI has not polled yet. */
async function approvedByDeveloper() {
  const username = `approver-${++counter}`;
  const { id } = await createUser(svc, op, username, [{ cellId: 'cell-acme', role: 'developer' }]);
  const started = await svc.call('POST', '/api/v1/developer/device-codes', { body: { clientName: 'cli' } });
  expect(started.status).toBe(201);
  const decided = await svc.call('POST', '/api/v1/developer/device-codes/decision', {
    body: { userCode: started.body.data.userCode, decision: 'approve' },
    headers: browser(await signIn(svc, username), svc),
  });
  expect(decided.body.data.company).toEqual({ cellId: 'cell-acme', name: 'Acme', role: 'developer' });
  return { accountId: id, deviceCode: started.body.data.deviceCode as string };
}

/** The CLI's poll, as if the interval had passed. */
async function poll(deviceCode: string, headers: Record<string, string> = {}) {
  await sql`UPDATE device_logins SET last_polled_at = NULL`.execute(svc.database.db);
  return svc.call('POST', '/api/v1/developer/device-tokens', { body: { deviceCode }, headers });
}

const setLicense = (accountId: string, role: 'developer' | 'member') =>
  svc.call('PUT', `/api/v1/admin/users/${accountId}/organizations/cell-acme`, { body: { role }, headers: bearer(op) });

const deviceKeys = async (accountId: string) =>
  (await sql<{ role: string }>`SELECT role FROM developer_keys WHERE account_id = ${accountId}`.execute(svc.database.db)).rows;

describe('a device approval followed by a role change before the poll', () => {
  it('after a demotion to member: the poll issues a member key (its dry run says so), and a later promotion does not raise it', async () => {
    const { accountId, deviceCode } = await approvedByDeveloper();
    expect((await setLicense(accountId, 'member')).status).toBe(200);

    const dry = await poll(deviceCode, { 'x-svc-dry-run': 'true' });
    expect(dry.status).toBe(202);
    expect(dry.body.data.plan).toEqual({ wouldIssue: { clientName: 'cli', role: 'member' } });

    const issued = await poll(deviceCode);
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    expect(issued.body.data).toMatchObject({ role: 'member', company: { cellId: 'cell-acme' } });
    expect(await deviceKeys(accountId)).toEqual([{ role: 'member' }]);
    const key = bearer(issued.body.data.key);
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: key })).body.data).toMatchObject({
      role: 'member',
      writableNamespaces: [],
    });

    expect((await setLicense(accountId, 'developer')).status).toBe(200);
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: key })).body.data.role).toBe('member');
  });

  it('after the license is removed: no key, access_denied, and it stays refused when the license comes back', async () => {
    const { accountId, deviceCode } = await approvedByDeveloper();
    const removed = await svc.call('DELETE', `/api/v1/admin/users/${accountId}/organizations/cell-acme`, { headers: bearer(op) });
    expect(removed.body.data.removed).toBe(true);

    const dry = await poll(deviceCode, { 'x-svc-dry-run': 'true' });
    expect([dry.status, dry.body.error?.code]).toEqual([403, 'access_denied']);
    const refused = await poll(deviceCode);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'access_denied']);
    expect(JSON.stringify(refused.body)).not.toContain('svc-dk-');
    expect(await deviceKeys(accountId)).toEqual([]);

    // The approval was given under a license that is gone: granting it again does not revive it.
    expect((await setLicense(accountId, 'developer')).status).toBe(200);
    const later = await poll(deviceCode);
    expect([later.status, later.body.error.code]).toEqual([403, 'access_denied']);
    expect(later.body.error.message).toBe('The approving account can no longer act for that company.');
    expect(await deviceKeys(accountId)).toEqual([]);
  });

  it('after the account is disabled: no key, access_denied, and it stays refused when the account is enabled again', async () => {
    const { accountId, deviceCode } = await approvedByDeveloper();
    const disable = await svc.call('PATCH', `/api/v1/admin/users/${accountId}`, { body: { status: 'disabled' }, headers: bearer(op) });
    expect(disable.status).toBe(200);

    const refused = await poll(deviceCode);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'access_denied']);
    expect(await deviceKeys(accountId)).toEqual([]);

    const enable = await svc.call('PATCH', `/api/v1/admin/users/${accountId}`, { body: { status: 'active' }, headers: bearer(op) });
    expect(enable.status).toBe(200);
    const later = await poll(deviceCode);
    expect([later.status, later.body.error.code]).toEqual([403, 'access_denied']);
    expect(await deviceKeys(accountId)).toEqual([]);
  });

  it('with the role unchanged: a developer key, as approved (the baseline of the cases above)', async () => {
    const { accountId, deviceCode } = await approvedByDeveloper();
    const issued = await poll(deviceCode);
    expect(issued.body.data.role).toBe('developer');
    expect(await deviceKeys(accountId)).toEqual([{ role: 'developer' }]);
  });
});
