import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browser, createUser, PASSWORD, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let op: string;

beforeAll(async () => {
  svc = await startTestService();
  ({ op } = await seedCompanies(svc));
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const signInRaw = (body: unknown, headers: Record<string, string> = { origin: svc.addresses.baseUrl }) =>
  svc.call('POST', '/api/v1/web/sessions', { body, headers });

describe('web sign-in', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie of at least 128 bits; the session knows the account', async () => {
    const res = await signInRaw({ login: 'dana', password: PASSWORD });
    expect(res.status).toBe(201);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^svc_session=[0-9A-Za-z]{33}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    const session = await svc.call('GET', '/api/v1/web/session', { headers: { cookie: cookie.split(';')[0]! } });
    expect(session.body.data).toMatchObject({ account: { username: 'dana' }, companies: [{ cellId: 'cell-acme', role: 'developer' }] });
    const stored = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM web_sessions WHERE hash = sha256(${cookie.split(';')[0]!.split('=')[1]!}::bytea)`.execute(
      svc.database.db,
    );
    expect(stored.rows[0]!.n).toBe(1);
  });

  it('uses the __Host- prefix and Secure when served over https', async () => {
    const local = await startTestService({ env: { SVC_BASE_URL: 'https://svc.example.com' } });
    try {
      const res = await local.call('POST', '/api/v1/web/sessions', {
        body: { login: 'operator', password: 'operator-password-1' },
        headers: { origin: 'https://svc.example.com' },
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('set-cookie')).toMatch(/^__Host-svc_session=\w+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/);
    } finally {
      await local.close();
    }
  });

  it('gives a new id at every sign-in and ends the previous session of that browser', async () => {
    const first = await signIn(svc, 'dana');
    const res = await signInRaw({ login: 'dana', password: PASSWORD }, { origin: svc.addresses.baseUrl, cookie: first });
    const second = res.headers.get('set-cookie')!.split(';')[0]!;
    expect(second).not.toBe(first);
    expect((await svc.call('GET', '/api/v1/web/session', { headers: { cookie: first } })).body.error.code).toBe('invalid_session');
    expect((await svc.call('GET', '/api/v1/web/session', { headers: { cookie: second } })).status).toBe(200);
  });

  it('signs out: the server forgets the session and the cookie is cleared', async () => {
    const cookie = await signIn(svc, 'dana');
    const res = await svc.call('DELETE', '/api/v1/web/sessions/current', { headers: browser(cookie, svc) });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/^svc_session=; .*Max-Age=0/);
    expect((await svc.call('GET', '/api/v1/web/session', { headers: { cookie } })).status).toBe(401);
  });

  it('answers invalid_session for a missing, unknown or expired session', async () => {
    const none = await svc.call('GET', '/api/v1/web/session');
    expect([none.status, none.body.error.code]).toEqual([401, 'invalid_session']);
    const unknown = await svc.call('GET', '/api/v1/web/session', { headers: { cookie: 'svc_session=abc' } });
    expect(unknown.body.error.code).toBe('invalid_session');
    const cookie = await signIn(svc, 'dana');
    await sql`UPDATE web_sessions SET expires_at = now() - interval '1 second'`.execute(svc.database.db);
    expect((await svc.call('GET', '/api/v1/web/session', { headers: { cookie } })).body.error.code).toBe('invalid_session');
  });

  it('refuses sign-in and session writes from other sites, Origin null and requests without any origin signal', async () => {
    const body = { login: 'dana', password: PASSWORD };
    for (const headers of [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      {},
      { 'sec-fetch-site': 'cross-site', origin: svc.addresses.baseUrl },
    ]) {
      const res = await signInRaw(body, headers as Record<string, string>);
      expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
    }
    const cookie = await signIn(svc, 'dana');
    for (const headers of [{ cookie, origin: 'null' }, { cookie }, { cookie, 'sec-fetch-site': 'same-site' }] as Record<string, string>[]) {
      const res = await svc.call('DELETE', '/api/v1/web/sessions/current', { headers });
      expect(res.status).toBe(403);
    }
    expect((await svc.call('GET', '/api/v1/web/session', { headers: { cookie } })).status).toBe(200);
  });

  it('shares the lockout with terminal login', async () => {
    await createUser(svc, op, 'shared', [{ cellId: 'cell-acme', role: 'member' }]);
    for (let i = 0; i < 3; i++) await signInRaw({ login: 'shared', password: 'wrong' });
    for (let i = 0; i < 2; i++)
      await svc.call('POST', '/api/v1/developer/password-tokens', { body: { login: 'shared', password: 'wrong' } });
    const web = await signInRaw({ login: 'shared', password: PASSWORD });
    expect(web.body.error.code).toBe('invalid_credentials');
    const terminal = await svc.call('POST', '/api/v1/developer/password-tokens', { body: { login: 'shared', password: PASSWORD } });
    expect(terminal.body.error.code).toBe('invalid_credentials');
  });
});

describe('changing a temporary password on the web', () => {
  it('turns password_change_required into a working login with the new password', async () => {
    await createUser(svc, op, 'temp', [{ cellId: 'cell-acme', role: 'member' }], { mustChangePassword: true });
    expect((await signInRaw({ login: 'temp', password: PASSWORD })).body.error.code).toBe('password_change_required');
    const wrong = await svc.call('POST', '/api/v1/web/password', {
      body: { login: 'temp', currentPassword: 'nope', newPassword: 'brand-new-password' },
      headers: { origin: svc.addresses.baseUrl },
    });
    expect(wrong.body.error.code).toBe('invalid_credentials');
    const res = await svc.call('POST', '/api/v1/web/password', {
      body: { login: 'temp', currentPassword: PASSWORD, newPassword: 'brand-new-password' },
      headers: { origin: svc.addresses.baseUrl },
    });
    expect(res.status).toBe(200);
    expect((await signInRaw({ login: 'temp', password: 'brand-new-password' })).status).toBe(201);
    expect((await signInRaw({ login: 'temp', password: PASSWORD })).body.error.code).toBe('invalid_credentials');
  });
});
