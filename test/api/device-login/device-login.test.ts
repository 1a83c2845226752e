import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { USER_CODE_PATTERN } from '../../../domain/device-login/user-code.ts';
import { bearer, browser, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestResponse, type TestService } from '../../support/service.ts';

let svc: TestService;
let devCookie: string;
let multiCookie: string;

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  devCookie = await signIn(svc, 'dana');
  multiCookie = await signIn(svc, 'multi');
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

async function start(clientName?: string) {
  const res = await svc.call('POST', '/api/v1/developer/device-codes', { body: clientName ? { clientName } : {} });
  expect(res.status).toBe(201);
  return res.body.data as {
    deviceCode: string;
    userCode: string;
    verificationUri: string;
    verificationUriComplete: string;
    expiresIn: number;
    interval: number;
  };
}

/** The next poll as if the interval had passed. */
async function poll(deviceCode: string, headers: Record<string, string> = {}) {
  await sql`UPDATE device_logins SET last_polled_at = now() - interval '1 hour' WHERE last_polled_at IS NOT NULL`.execute(svc.database.db);
  return svc.call('POST', '/api/v1/developer/device-tokens', { body: { deviceCode }, headers });
}

const decide = (cookie: string, body: Record<string, unknown>) =>
  svc.call('POST', '/api/v1/developer/device-codes/decision', { body, headers: browser(cookie, svc) });

describe('device login', () => {
  it('starts with a device code, a user code, the verification addresses, expiry and interval', async () => {
    const d = await start('my laptop');
    expect(d.deviceCode).toMatch(/^[A-Za-z0-9_-]{32,128}$/);
    expect(d.deviceCode.length).toBeGreaterThanOrEqual(43); // 256 bits of base62
    expect(d.userCode).toMatch(USER_CODE_PATTERN);
    expect(d.verificationUri).toBe(`${svc.addresses.baseUrl}/device`);
    expect(d.verificationUriComplete).toBe(`${svc.addresses.baseUrl}/device?code=${d.userCode}`);
    expect([d.expiresIn, d.interval]).toEqual([600, 5]);
    const stored = await sql`SELECT * FROM device_logins`.execute(svc.database.db);
    expect(JSON.stringify(stored.rows)).not.toContain(d.deviceCode);
  });

  it('draws user codes from the 20-letter alphabet, each letter used', async () => {
    const { generateUserCode } = await import('../../../domain/device-login/user-code.ts');
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) for (const c of generateUserCode()) seen.add(c);
    expect([...seen].sort().join('')).toBe('BCDFGHJKLMNPQRSTVWXZ');
  });

  it('walks pending -> approve -> one key exactly once', async () => {
    const d = await start('cli');
    const pending = await poll(d.deviceCode);
    expect([pending.status, pending.body.error.code, pending.body.error.details]).toEqual([400, 'authorization_pending', { interval: 5 }]);

    const approved = await decide(devCookie, { userCode: d.userCode, decision: 'approve' });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toEqual({
      decision: 'approve',
      clientName: 'cli',
      company: { cellId: 'cell-acme', name: 'Acme', role: 'developer' },
    });

    const issued = await poll(d.deviceCode);
    expect(issued.status).toBe(201);
    expect(issued.body.data).toMatchObject({
      role: 'developer',
      clientName: 'cli',
      company: { cellId: 'cell-acme' },
      account: { username: 'dana' },
    });
    const me = await svc.call('GET', '/api/v1/developer/me', { headers: bearer(issued.body.data.key) });
    expect(me.body.data.role).toBe('developer');

    const again = await poll(d.deviceCode);
    expect([again.status, again.body.error.code]).toEqual([400, 'device_code_expired']);
  });

  it('issues a single key when polls race after approval', async () => {
    const d = await start();
    await decide(devCookie, { userCode: d.userCode, decision: 'approve' });
    await sql`UPDATE device_logins SET last_polled_at = NULL`.execute(svc.database.db);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => svc.call('POST', '/api/v1/developer/device-tokens', { body: { deviceCode: d.deviceCode } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const keys = await sql<{ n: number }>`SELECT count(*)::int AS n FROM developer_keys WHERE issued_by = 'device'`.execute(
      svc.database.db,
    );
    expect(keys.rows[0]!.n).toBeGreaterThan(0);
  });

  it('answers access_denied after a denial', async () => {
    const d = await start();
    expect((await decide(devCookie, { userCode: d.userCode, decision: 'deny' })).body.data.decision).toBe('deny');
    const res = await poll(d.deviceCode);
    expect([res.status, res.body.error.code]).toEqual([403, 'access_denied']);
  });

  it('refuses polls faster than the interval with rate_limited and the interval to use', async () => {
    const d = await start();
    await poll(d.deviceCode);
    const fast = await svc.call('POST', '/api/v1/developer/device-tokens', { body: { deviceCode: d.deviceCode } });
    expect([fast.status, fast.body.error.code, fast.body.error.details]).toEqual([429, 'rate_limited', { interval: 5 }]);
    expect(fast.headers.get('retry-after')).toBe('5');
  });

  it('refuses a decision on a code past its time at once, even before anyone marked it expired', async () => {
    const d = await start();
    await sql`UPDATE device_logins SET expires_at = now() - interval '1 second'`.execute(svc.database.db);
    // This once locked the row and then updated it on another connection: 503 timeout after 15 s.
    const late = await decide(devCookie, { userCode: d.userCode, decision: 'approve' });
    expect([late.status, late.body.error.code]).toEqual([400, 'device_code_expired']);
    const row = await sql<{ status: string }>`SELECT status FROM device_logins ORDER BY created_at DESC LIMIT 1`.execute(svc.database.db);
    expect(row.rows[0]!.status).toBe('expired');
  });

  it('expires: device_code_expired on poll and on decision', async () => {
    const d = await start();
    await sql`UPDATE device_logins SET expires_at = now() - interval '1 second'`.execute(svc.database.db);
    expect((await poll(d.deviceCode)).body.error.code).toBe('device_code_expired');
    const late = await decide(devCookie, { userCode: d.userCode, decision: 'approve' });
    expect([late.status, late.body.error.code]).toEqual([400, 'device_code_expired']);
    const unknown = await poll('A'.repeat(43));
    expect(unknown.body.error.code).toBe('device_code_expired');
  });

  it('accepts the user code in any case, with spaces or without the hyphen', async () => {
    const d = await start();
    const typed = ` ${d.userCode.replace('-', ' ').toLowerCase()} `;
    const res = await decide(devCookie, { userCode: typed, decision: 'approve' });
    expect(res.status).toBe(200);
    const bad = await decide(devCookie, { userCode: 'AEIO-UAEI', decision: 'approve' });
    expect(bad.body.error.details.problems[0].path).toBe('userCode');
  });

  it('needs the company when the account has several, and the role there becomes the key’s', async () => {
    const d = await start();
    const missing = await decide(multiCookie, { userCode: d.userCode, decision: 'approve' });
    expect(missing.body.error.code).toBe('invalid_payload');
    expect(missing.body.error.details.problems[0].path).toBe('cellId');
    expect(missing.body.error.details.companies.map((c: { cellId: string }) => c.cellId)).toEqual(['cell-acme', 'cell-globex']);
    const notMine = await decide(multiCookie, { userCode: d.userCode, decision: 'approve', cellId: 'cell-initech' });
    expect(notMine.body.error.code).toBe('forbidden');
    const ok = await decide(multiCookie, { userCode: d.userCode, decision: 'approve', cellId: 'cell-acme' });
    expect(ok.body.data.company.role).toBe('member');
    expect((await poll(d.deviceCode)).body.data).toMatchObject({ role: 'member', company: { cellId: 'cell-acme' } });
  });

  it('takes decisions only from a signed-in, same-origin browser', async () => {
    const d = await start();
    const anonymous = await svc.call('POST', '/api/v1/developer/device-codes/decision', {
      body: { userCode: d.userCode, decision: 'approve' },
    });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'invalid_session']);
    const crossSite = await svc.call('POST', '/api/v1/developer/device-codes/decision', {
      body: { userCode: d.userCode, decision: 'approve' },
      headers: { cookie: devCookie, origin: 'https://evil.example' },
    });
    expect([crossSite.status, crossSite.body.error.code]).toEqual([403, 'forbidden']);
    expect((await poll(d.deviceCode)).body.error.code).toBe('authorization_pending');
  });

  it('limits user-code guessing per account', async () => {
    let last: TestResponse | undefined;
    for (let i = 0; i < 21; i++) last = await decide(devCookie, { userCode: 'BBBB-BBBB', decision: 'approve' });
    expect([last!.status, last!.body.error.code]).toEqual([429, 'rate_limited']);
  });

  it('tells the approval page what a code stands for', async () => {
    const d = await start('page client');
    const look = (code: string) =>
      svc.call('GET', `/api/v1/web/device-codes/${encodeURIComponent(code)}`, { headers: { cookie: devCookie } });
    expect((await look(d.userCode.toLowerCase())).body.data).toMatchObject({
      userCode: d.userCode,
      state: 'pending',
      clientName: 'page client',
    });
    expect((await look('BBBB-CCCC')).body.data.state).toBe('unknown');
    await decide(devCookie, { userCode: d.userCode, decision: 'approve' });
    await poll(d.deviceCode);
    expect((await look(d.userCode)).body.data.state).toBe('used');
  });

  it('a dry run of the poll shows the state without consuming the key', async () => {
    const d = await start();
    await decide(devCookie, { userCode: d.userCode, decision: 'approve' });
    const dry = await poll(d.deviceCode, { 'x-svc-dry-run': 'true' });
    expect(dry.status).toBe(202);
    expect(JSON.stringify(dry.body)).not.toContain('svc-dk-');
    expect((await poll(d.deviceCode)).status).toBe(201);
  });
});
