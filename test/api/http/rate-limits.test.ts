import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { routes } from '../../../api/routes.ts';
import { DEVICE_LOGIN } from '../../../domain/device-login/settings.ts';
import { TestClock } from '../../support/clock.ts';
import { browser, createUser, PASSWORD, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestResponse, type TestService } from '../../support/service.ts';

// Every request budget docs/operators/identity.md promises, pinned at its exact threshold over HTTP. The service
// runs on an injected clock standing at 05:06:45, 15 s before its minute ends, so the windows are
// known: nothing waits, nothing depends on the wall clock, and Retry-After is exact.
// docs/operators/identity.md: "Rate limits: 30 attempts per IP and 10 per login per minute (429 rate_limited with
// Retry-After)"; "Device codes may be started 10 times per IP per minute"; code entry "allows 20
// lookups per account per 10 minutes".

const T = '2031-03-04T05:06:45.000Z';
const clock = new TestClock(T);
let svc: TestService;
let op: string;
let ipCounter = 0;
/** Each test calls from addresses of its own (X-Forwarded-For through a trusted proxy). */
const nextIp = () => ({ 'x-forwarded-for': `203.0.113.${++ipCounter}` });

beforeAll(async () => {
  svc = await startTestService({ clock, env: { SVC_TRUSTED_PROXIES: '127.0.0.1' } });
  ({ op } = await seedCompanies(svc));
});
afterAll(() => svc.close());
beforeEach(async () => {
  clock.set(T);
  await resetRateLimits(svc);
});

function expectRefused(res: TestResponse, retryAfter: number) {
  expect([res.status, res.body.error?.code], JSON.stringify(res.body)).toEqual([429, 'rate_limited']);
  expect(res.headers.get('retry-after')).toBe(String(retryAfter));
}

const startDeviceCode = (ip: Record<string, string>) => svc.call('POST', '/api/v1/developer/device-codes', { body: {}, headers: ip });

describe('per-route budgets', () => {
  it('are declared on exactly fourteen routes: 10 device-code starts, 150 polls, 60 login, 30 invitation, 20 OAuth registration, 60 token, 60 revocation, 10 mail-test and 120 public-app-link requests per IP per minute, and 120 ontology SQL requests per company and IP', () => {
    const budgets = Object.fromEntries(routes.filter((r) => r.rateLimit).map((r) => [r.operationId, r.rateLimit]));
    expect(budgets).toEqual({
      createDeviceCode: { perMinute: 10 },
      pollDeviceToken: { perMinute: 150 },
      createPasswordToken: { perMinute: 60 },
      webSignIn: { perMinute: 60 },
      webChangePassword: { perMinute: 60 },
      webAcceptInvitation: { perMinute: 30 },
      registerOAuthClient: { perMinute: 20 },
      issueOAuthToken: { perMinute: 60 },
      revokeOAuthToken: { perMinute: 60 },
      sendTestNotification: { perMinute: 10 },
      executeOntologySql: { perMinute: 120, per: 'tenant' },
      getPublicApp: { perMinute: 120 },
      listPublicAppObjects: { perMinute: 120 },
      getPublicAppObject: { perMinute: 120 },
    });
  });

  it('registerOAuthClient: 20 registrations per IP per minute, refused in the OAuth shape', async () => {
    const ip = nextIp();
    const send = () => svc.call('POST', '/api/v1/oauth/register', { body: {}, headers: ip });
    for (let i = 0; i < 20; i++) expect((await send()).body.error).toBe('invalid_request');
    const refused = await send();
    expect([refused.status, refused.body.error]).toEqual([429, 'temporarily_unavailable']);
    expect(refused.headers.get('retry-after')).toBe('15');
  });

  it.each([
    ['pollDeviceToken', 150, '/api/v1/developer/device-tokens'],
    ['createPasswordToken', 60, '/api/v1/developer/password-tokens'],
    ['webSignIn', 60, '/api/v1/web/sessions'],
    ['webChangePassword', 60, '/api/v1/web/password'],
    ['webAcceptInvitation', 30, '/api/v1/web/invitations/accept'],
  ] as const)(
    '%s: %i requests per IP per minute, counted before the body is read; the next is refused',
    async (_operationId, budget, path) => {
      const ip = nextIp();
      // An invalid body never reaches the password check or the poll, so only the route's own budget counts.
      const send = () => svc.call('POST', path, { body: {}, headers: { ...ip, origin: svc.addresses.baseUrl } });
      for (let i = 0; i < budget; i++) expect((await send()).body.error.code).toBe('invalid_payload');
      expectRefused(await send(), 15);
      clock.set('2031-03-04T05:07:00.000Z');
      expect((await send()).body.error.code).toBe('invalid_payload');
    },
  );

  it('start 10 device codes from one IP in a minute and refuse the 11th until the next minute', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) expect((await startDeviceCode(ip)).status).toBe(201);
    expectRefused(await startDeviceCode(ip), 15);
    expect((await startDeviceCode(nextIp())).status).toBe(201); // another IP has its own budget

    clock.set('2031-03-04T05:06:59.999Z');
    expectRefused(await startDeviceCode(ip), 1);
    clock.set('2031-03-04T05:07:00.000Z');
    expect((await startDeviceCode(ip)).status).toBe(201);
  });

  it('count a refused or dry-run start too', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) {
      const res = await svc.call('POST', '/api/v1/developer/device-codes', { body: {}, headers: { ...ip, 'x-svc-dry-run': 'true' } });
      expect(res.status).toBe(202);
    }
    expectRefused(await startDeviceCode(ip), 15);
  });
});

describe('login budgets (terminal login, web sign-in and the password change share them)', () => {
  const terminal = (ip: Record<string, string>, login: string, password = 'wrong') =>
    svc.call('POST', '/api/v1/developer/password-tokens', { body: { login, password }, headers: ip });
  const web = (ip: Record<string, string>, login: string, password = 'wrong') =>
    svc.call('POST', '/api/v1/web/sessions', { body: { login, password }, headers: { ...ip, origin: svc.addresses.baseUrl } });
  const change = (ip: Record<string, string>, login: string) =>
    svc.call('POST', '/api/v1/web/password', {
      body: { login, currentPassword: 'wrong', newPassword: 'a-long-new-password' },
      headers: { ...ip, origin: svc.addresses.baseUrl },
    });

  it('allow 30 attempts per IP per minute and refuse the 31st, even with the right password', async () => {
    const ip = nextIp();
    const kinds = [terminal, web, change];
    for (let i = 0; i < 30; i++) {
      const res = await kinds[i % 3]!(ip, `nobody-${i}`);
      expect([res.status, res.body.error.code]).toEqual([401, 'invalid_credentials']);
    }
    expectRefused(await terminal(ip, 'dana', PASSWORD), 15);
    expectRefused(await web(ip, 'dana', PASSWORD), 15);
    expect((await terminal(nextIp(), 'dana', PASSWORD)).status).toBe(201); // the account is not what is limited here

    clock.set('2031-03-04T05:07:00.000Z');
    expect((await terminal(ip, 'dana', PASSWORD)).status).toBe(201);
  });

  it('allow 10 attempts per login per minute from any IPs and refuse the 11th, whatever its case', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await [terminal, web][i % 2]!(nextIp(), i % 2 ? 'Ghost-Login' : 'ghost-login');
      expect(res.body.error.code).toBe('invalid_credentials');
    }
    expectRefused(await terminal(nextIp(), 'GHOST-LOGIN'), 15);
    expectRefused(await web(nextIp(), 'ghost-login'), 15);
    clock.set('2031-03-04T05:07:00.000Z');
    expect((await terminal(nextIp(), 'ghost-login')).body.error.code).toBe('invalid_credentials');
  });

  it('count an account’s username and email in one bucket', async () => {
    await createUser(svc, op, 'two-logins', [{ cellId: 'cell-acme', role: 'member' }]);
    for (let i = 0; i < 10; i++) await [terminal, web][i % 2]!(nextIp(), i % 2 ? 'two-logins' : 'TWO-LOGINS@example.com');
    expectRefused(await terminal(nextIp(), 'two-logins@example.com', PASSWORD), 15);
    expectRefused(await web(nextIp(), 'Two-Logins', PASSWORD), 15);
  });
});

describe('user-code entry', () => {
  it('allows 20 look-ups and decisions per account per 10 minutes and refuses the 21st until the window ends', async () => {
    expect(DEVICE_LOGIN.codeEntryLimit).toEqual({ name: 'device-code-entry', max: 20, windowSeconds: 600 });
    const cookie = await signIn(svc, 'gus');
    const lookUp = () => svc.call('GET', '/api/v1/web/device-codes/BBBB-BBBB', { headers: { cookie } });
    const decide = () =>
      svc.call('POST', '/api/v1/developer/device-codes/decision', {
        body: { userCode: 'BBBB-BBBB', decision: 'approve' },
        headers: browser(cookie, svc),
      });
    for (let i = 0; i < 20; i++) {
      const res = await (i % 2 ? decide() : lookUp());
      expect(res.status, JSON.stringify(res.body)).toBe(i % 2 ? 400 : 200); // unknown code: device_code_expired or state unknown
    }
    // The 10-minute window runs 05:00:00 to 05:10:00; at 05:06:45, 195 s are left.
    expectRefused(await lookUp(), 195);
    expectRefused(await decide(), 195);
    clock.set('2031-03-04T05:09:59.999Z');
    expectRefused(await lookUp(), 1);
    clock.set('2031-03-04T05:10:00.000Z');
    expect((await lookUp()).status).toBe(200);
  });
});
