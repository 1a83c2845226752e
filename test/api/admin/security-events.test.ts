import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOCKOUT } from '../../../domain/accounts/check-password.ts';
import { bearer, createUser, PASSWORD, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// The security event log an operator reads after an incident.

let svc: TestService;
let op: string;
let n = 0;

beforeAll(async () => {
  svc = await startTestService();
  ({ op } = await seedCompanies(svc));
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

type Event = { id: string; kind: string; accountId: string | null; actorId: string | null; ip: string | null; details: any };

async function events(query = ''): Promise<{ events: Event[]; next: string | null }> {
  const res = await svc.call('GET', `/api/v1/admin/security-events${query}`, { headers: bearer(op) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const newPerson = async () => createUser(svc, op, `ev${++n}x`, [{ cellId: 'cell-acme', role: 'developer' }]);
const tokenLogin = (login: string, password: string) =>
  svc.call('POST', '/api/v1/developer/password-tokens', { body: { login, password } });
const webLogin = (login: string, password: string) =>
  svc.call('POST', '/api/v1/web/sessions', { body: { login, password }, headers: { origin: svc.addresses.baseUrl } });

describe('security event log', () => {
  it('records sign-in failures from the web and the terminal, with IP and reason, and the lockout', async () => {
    const p = await newPerson();
    expect((await webLogin(p.username, 'wrong')).status).toBe(401);
    for (let i = 1; i < LOCKOUT.failures; i++) expect((await tokenLogin(`${p.username}@example.com`, 'wrong')).status).toBe(401);
    const mine = (await events(`?accountId=${p.id}`)).events;
    const failures = mine.filter((e) => e.kind === 'sign_in_failed');
    expect(failures).toHaveLength(LOCKOUT.failures);
    expect(failures.every((e) => e.ip === '127.0.0.1' && e.details.reason === 'wrong_password')).toBe(true);
    expect(mine.filter((e) => e.kind === 'account_locked')).toEqual([
      expect.objectContaining({ accountId: p.id, details: { failures: LOCKOUT.failures, minutes: LOCKOUT.minutes } }),
    ]);
    // While locked, even the right password fails, and the log says why.
    expect((await tokenLogin(p.username, PASSWORD)).status).toBe(401);
    expect((await events(`?accountId=${p.id}&kind=sign_in_failed&limit=1`)).events[0]?.details).toEqual({ reason: 'locked' });
  });

  it('records an unknown login without an account and without what was typed', async () => {
    await tokenLogin('nobody-at-all', 'hunter2-typed-into-the-wrong-field');
    const [latest] = (await events('?kind=sign_in_failed&limit=1')).events;
    expect(latest).toMatchObject({ accountId: null, ip: '127.0.0.1', details: { reason: 'unknown_login' } });
    expect(JSON.stringify(latest)).not.toMatch(/nobody-at-all|hunter2/);
  });

  it('records keys issued and revoked, and password changes, never a secret', async () => {
    const p = await newPerson();
    const key = await passwordKey(svc, p.username);
    const keyId = (await svc.call('GET', '/api/v1/developer/me', { headers: bearer(key) })).body.data.keyPrefix;
    const keys = (await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(key) })).body.data.keys;
    await svc.call('DELETE', `/api/v1/developer/keys/${keys[0].keyId}`, { headers: bearer(key) });
    const changed = await svc.call('POST', '/api/v1/web/password', {
      body: { login: p.username, currentPassword: PASSWORD, newPassword: 'another-long-password' },
      headers: { origin: svc.addresses.baseUrl },
    });
    expect(changed.status).toBe(200);

    const mine = (await events(`?accountId=${p.id}`)).events;
    expect(mine.map((e) => e.kind)).toEqual(['password_changed', 'key_revoked', 'key_issued']);
    expect(mine[2]?.details).toMatchObject({ keyId: keys[0].keyId, prefix: keyId, issuedBy: 'password', role: 'developer' });
    expect(mine[1]?.details).toEqual({ reason: 'owner', keyIds: [keys[0].keyId] });
    expect(JSON.stringify(mine)).not.toContain(key);
    expect(JSON.stringify(mine)).not.toMatch(/correct-horse|another-long-password/);
  });

  it('names the operator who reset a password or disabled an account', async () => {
    const p = await newPerson();
    await passwordKey(svc, p.username);
    await svc.call('PATCH', `/api/v1/admin/users/${p.id}`, {
      body: { password: 'operator-chosen-pass', status: 'disabled' },
      headers: bearer(op),
    });
    const operatorId = (await svc.call('GET', '/api/v1/developer/me', { headers: bearer(op) })).body.data.account.id;
    const mine = (await events(`?accountId=${p.id}`)).events.filter((e) => e.kind !== 'key_issued');
    expect(mine.map((e) => [e.kind, e.actorId, e.details.reason ?? null]).sort()).toEqual(
      [
        ['account_disabled', operatorId, null],
        ['key_revoked', operatorId, 'password_reset'],
        ['password_reset', operatorId, null],
      ].sort(),
    );
  });

  it('pages newest first with a cursor that new events do not shift, and refuses a forged cursor', async () => {
    const p = await newPerson();
    for (let i = 0; i < 5; i++) await webLogin(p.username, `wrong-${i}`);
    const seen: string[] = [];
    let page = await events(`?accountId=${p.id}&limit=2`);
    seen.push(...page.events.map((e) => e.id));
    await webLogin('someone-else', 'x'); // a new event between pages
    while (page.next) {
      page = await events(`?accountId=${p.id}&limit=2&before=${page.next}`);
      seen.push(...page.events.map((e) => e.id));
    }
    const all = (await events(`?accountId=${p.id}`)).events.map((e) => e.id);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(6); // 5 failures and the lockout

    const forged = await svc.call('GET', '/api/v1/admin/security-events?before=not-a-cursor', { headers: bearer(op) });
    expect([forged.status, forged.body.error.code]).toEqual([400, 'invalid_payload']);
  });

  it('is for operators only', async () => {
    const dev = await passwordKey(svc, 'dana');
    const res = await svc.call('GET', '/api/v1/admin/security-events', { headers: bearer(dev) });
    expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
  });
});

describe('login rate limit per account', () => {
  it('counts username and email of one account in one bucket (10 a minute, not 20)', async () => {
    const p = await newPerson();
    for (let i = 0; i < 10; i++) expect((await tokenLogin(i % 2 ? p.username : `${p.username}@example.com`, PASSWORD)).status).toBe(201);
    const refused = await tokenLogin(`${p.username.toUpperCase()}@EXAMPLE.COM`, PASSWORD);
    expect([refused.status, refused.body.error.code]).toEqual([429, 'rate_limited']);
    expect((await tokenLogin(p.username, PASSWORD)).status).toBe(429);
  });
});

describe('account creation race', () => {
  it('concurrent creations of one username make one account; the others answer conflict naming the field, never a constraint', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        svc.call('POST', '/api/v1/admin/users', {
          body: { username: 'racer', email: `racer${i}@example.com`, password: PASSWORD, emailVerified: true },
          headers: bearer(op),
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect([a.status, a.body.error.code, a.body.error.details]).toEqual([409, 'conflict', { field: 'username' }]);
    }
  });
});
