import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../support/clock.ts';
import { snapshotService } from '../../support/db-snapshot.ts';
import { bearer, createUser, PASSWORD, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestResponse, type TestService } from '../../support/service.ts';

let svc: TestService;
let op: string;
const TOKENS = '/api/v1/developer/password-tokens';

beforeAll(async () => {
  svc = await startTestService();
  ({ op } = await seedCompanies(svc));
  await createUser(svc, op, 'loner', []);
  await createUser(svc, op, 'unverified', [{ cellId: 'cell-acme', role: 'member' }], { emailVerified: false });
  await createUser(svc, op, 'temporary', [{ cellId: 'cell-acme', role: 'member' }], { mustChangePassword: true });
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const login = (body: Record<string, unknown>, headers: Record<string, string> = {}) => svc.call('POST', TOKENS, { body, headers });

describe('POST /api/v1/developer/password-tokens', () => {
  it('issues a key for the only company with the account’s role there, by username or email in any case', async () => {
    const res = await login({ login: 'DANA@example.com', password: PASSWORD, clientName: 'laptop' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      role: 'developer',
      clientName: 'laptop',
      company: { cellId: 'cell-acme', name: 'Acme' },
      account: { username: 'dana' },
    });
    expect(res.body.data.key).toMatch(/^svc-dk-[0-9A-Za-z]{39}$/);
    expect(res.body.data.key.startsWith(res.body.data.prefix)).toBe(true);

    const member = await login({ login: 'mo', password: PASSWORD });
    expect(member.body.data.role).toBe('member');
  });

  it('stores only a SHA-256 hash of the key', async () => {
    const key = await passwordKey(svc, 'dana');
    const rows = await sql`SELECT * FROM developer_keys`.execute(svc.database.db);
    expect(JSON.stringify(rows.rows)).not.toContain(key.slice(7, 30));
    const hashes = await sql<{ n: number }>`SELECT count(*)::int AS n FROM developer_keys WHERE hash = sha256(${key}::bytea)`.execute(
      svc.database.db,
    );
    expect(hashes.rows[0]!.n).toBe(1);
  });

  it('asks for cellId when the account acts for several companies, listing them', async () => {
    const res = await login({ login: 'multi', password: PASSWORD });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('company_required');
    expect(res.body.error.details.companies).toEqual([
      { cellId: 'cell-acme', name: 'Acme', role: 'member' },
      { cellId: 'cell-globex', name: 'Globex', role: 'developer' },
    ]);
    const chosen = await login({ login: 'multi', password: PASSWORD, cellId: 'cell-globex' });
    expect(chosen.status).toBe(201);
    expect(chosen.body.data).toMatchObject({ role: 'developer', company: { cellId: 'cell-globex' } });
  });

  it('refuses an account of no company, and a company the account is not in, with forbidden', async () => {
    const none = await login({ login: 'loner', password: PASSWORD });
    expect([none.status, none.body.error.code]).toEqual([403, 'forbidden']);
    const other = await login({ login: 'dana', password: PASSWORD, cellId: 'cell-globex' });
    expect([other.status, other.body.error.code]).toEqual([403, 'forbidden']);
  });

  it('requires a verified email and a changed temporary password, only once the password is right', async () => {
    const unverified = await login({ login: 'unverified', password: PASSWORD });
    expect([unverified.status, unverified.body.error.code]).toEqual([403, 'email_verification_required']);
    const temporary = await login({ login: 'temporary', password: PASSWORD });
    expect([temporary.status, temporary.body.error.code]).toEqual([403, 'password_change_required']);
    const wrong = await login({ login: 'temporary', password: 'nope' });
    expect(wrong.body.error.code).toBe('invalid_credentials');
  });

  it('validates the body strictly', async () => {
    const res = await login({ login: '', password: 'x'.repeat(257), cellId: 'acme', extra: true });
    expect(res.status).toBe(400);
    expect(res.body.error.details.problems.map((p: { path: string }) => p.path).sort()).toEqual(['cellId', 'extra', 'login', 'password']);
  });

  it('answers a dry run with the company the key would act for, issuing nothing', async () => {
    // Earlier tests' key uses are written off the request path; write them now, not mid-comparison.
    await svc.deps.keyUses.flush();
    const before = await snapshotService(svc);
    const res = await login({ login: 'multi', password: PASSWORD, cellId: 'cell-acme' }, { 'x-svc-dry-run': 'true' });
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({
      dryRun: true,
      plan: {
        wouldIssue: {
          account: { id: expect.any(String), username: 'multi' },
          company: { cellId: 'cell-acme', name: 'Acme' },
          role: 'member',
          clientName: 'svc client',
        },
      },
    });
    expect(JSON.stringify(res.body)).not.toContain('svc-dk-');
    await svc.deps.keyUses.flush();
    const after = await snapshotService(svc);
    // Only the rate-limit counters moved: no key, no session, no account change.
    const { ['table:rate_limit_hits']: _b, ...restBefore } = before;
    const { ['table:rate_limit_hits']: _a, ...restAfter } = after;
    expect(restAfter).toEqual(restBefore);
  });
});

describe('lockout', () => {
  it('locks after five consecutive failures, answering exactly like a wrong password or an unknown login', async () => {
    await createUser(svc, op, 'victim', [{ cellId: 'cell-acme', role: 'member' }]);
    const wrong = await login({ login: 'victim', password: 'wrong' });
    const unknown = await login({ login: 'nobody-at-all', password: 'wrong' });
    const strip = (r: typeof wrong) => ({ status: r.status, body: { ...r.body, requestId: undefined } });
    expect(strip(unknown)).toEqual(strip(wrong));

    for (let i = 0; i < 3; i++) await login({ login: 'victim', password: 'wrong' });
    // A dry run is no free guess: it counts as the fifth failure.
    const fifth = await login({ login: 'victim', password: 'wrong' }, { 'x-svc-dry-run': 'true' });
    expect(fifth.body.error.code).toBe('invalid_credentials');

    const locked = await login({ login: 'victim', password: PASSWORD });
    expect(strip(locked)).toEqual(strip(wrong));

    // Fifteen minutes later (moved by hand) the right password works again.
    await sql`UPDATE accounts SET locked_until = now() - interval '1 second' WHERE username = 'victim'`.execute(svc.database.db);
    expect((await login({ login: 'victim', password: PASSWORD })).status).toBe(201);
  });

  it('counts only consecutive failures: a success resets the count', async () => {
    await createUser(svc, op, 'careful', [{ cellId: 'cell-acme', role: 'member' }]);
    for (let i = 0; i < 4; i++) await login({ login: 'careful', password: 'wrong' });
    expect((await login({ login: 'careful', password: PASSWORD })).status).toBe(201);
    for (let i = 0; i < 4; i++) await login({ login: 'careful', password: 'wrong' });
    expect((await login({ login: 'careful', password: PASSWORD })).status).toBe(201);
  });
});

describe('under concurrent logins', () => {
  it('answers every one and keeps the service responsive (no pool exhaustion)', async () => {
    // More concurrent logins than the pool has connections; each once held one connection
    // in its transaction while waiting for a second for its counters.
    const logins = Array.from({ length: 16 }, (_, i) => login({ login: `crowd-${i}`, password: 'wrong' }));
    const health = svc.call('GET', '/api/v1/health');
    const results = await Promise.all(logins);
    expect(results.map((r) => r.body.error.code)).toEqual(Array(16).fill('invalid_credentials'));
    expect((await health).status).toBe(200);
  });
});

describe('rate limits', () => {
  // Mid-minute and standing still: no burst of attempts straddles a window boundary.
  const midMinute = () => new TestClock('2026-11-22T12:00:30Z');

  it('limit attempts per login with 429 rate_limited and Retry-After', async () => {
    const local = await startTestService({ clock: midMinute() });
    try {
      let last: TestResponse | undefined;
      for (let i = 0; i < 11; i++) last = await local.call('POST', TOKENS, { body: { login: 'ghost-account', password: 'x' } });
      expect(last!.status).toBe(429);
      expect(last!.body.error.code).toBe('rate_limited');
      expect(Number(last!.headers.get('retry-after'))).toBe(30);
    } finally {
      await local.close();
    }
  });

  it('limit attempts per IP, ignoring X-Forwarded-For from an untrusted peer', async () => {
    const local = await startTestService({ clock: midMinute() });
    try {
      let last: TestResponse | undefined;
      for (let i = 0; i < 31; i++) {
        last = await local.call('POST', TOKENS, {
          body: { login: `u${i}`, password: 'x' },
          headers: { 'x-forwarded-for': `203.0.113.${i}` },
        });
      }
      expect(last!.status).toBe(429);
    } finally {
      await local.close();
    }
  });

  it('believe X-Forwarded-For from a configured proxy', async () => {
    const local = await startTestService({ env: { SVC_TRUSTED_PROXIES: '127.0.0.1' }, clock: midMinute() });
    try {
      for (let i = 0; i < 35; i++) {
        const res = await local.call('POST', TOKENS, {
          body: { login: `u${i}`, password: 'x' },
          headers: { 'x-forwarded-for': `203.0.113.${i}` },
        });
        expect(res.body.error.code).toBe('invalid_credentials');
      }
    } finally {
      await local.close();
    }
  });
});

describe('operator bootstrap', () => {
  it('creates the operator once, with the platform company, and leaves it alone afterwards', async () => {
    const me = await svc.call('GET', '/api/v1/developer/me', { headers: bearer(op) });
    expect(me.body.data).toMatchObject({
      account: { username: 'operator', platformStaff: true },
      company: { cellId: 'cell-platform' },
      role: 'developer',
      writableNamespaces: ['cell-platform', 'public'],
    });
    const { bootstrapOperator } = await import('../../../domain/accounts/bootstrap-operator.ts');
    const again = await bootstrapOperator(svc.deps.db, { login: 'operator', password: 'a-different-password' }, svc.deps.passwordHashing);
    expect(again).toBe('exists');
    expect((await login({ login: 'operator', password: 'a-different-password' })).body.error.code).toBe('invalid_credentials');
  });
});
