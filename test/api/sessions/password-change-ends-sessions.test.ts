import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createUser, PASSWORD, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// docs/operators/identity.md: web sessions are "ended on the server by sign-out, by a password change and by an
// operator's password reset". A person signed in on two browsers changes their password on one.
//
// The change form (POST /api/v1/web/password) authenticates by login and current password, not
// by the session: it also serves people whose temporary password does not let them sign in yet.
// So every session of the account ends, the changing browser's too, and the sign-in page then
// signs that browser in again with the new password (api/web/assets/signin.js): the changing
// browser is re-issued a session, the other stays signed out.

let svc: TestService;
let op: string;
let counter = 0;

beforeAll(async () => {
  svc = await startTestService();
  ({ op } = await seedCompanies(svc));
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const session = (cookie: string) => svc.call('GET', '/api/v1/web/session', { headers: { cookie } });
const NEW_PASSWORD = 'a-brand-new-password';

describe('a person’s own password change', () => {
  it('ends the other browser’s session (401 invalid_session); the changing browser is signed in again with the new password', async () => {
    const { username } = await createUser(svc, op, `two-browsers-${++counter}`, [{ cellId: 'cell-acme', role: 'member' }]);
    const changing = await signIn(svc, username);
    const other = await signIn(svc, username);
    expect((await session(other)).status).toBe(200);

    const changed = await svc.call('POST', '/api/v1/web/password', {
      body: { login: username, currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      headers: { cookie: changing, origin: svc.addresses.baseUrl },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);

    const otherAfter = await session(other);
    expect([otherAfter.status, otherAfter.body.error.code]).toEqual([401, 'invalid_session']);
    // The changing browser's old session ended with all the others (the form is not session-bound) …
    expect((await session(changing)).body.error?.code).toBe('invalid_session');

    // … and the page signs it in again, with the new password only.
    const again = await svc.call('POST', '/api/v1/web/sessions', {
      body: { login: username, password: NEW_PASSWORD },
      headers: { cookie: changing, origin: svc.addresses.baseUrl },
    });
    expect(again.status).toBe(201);
    const reissued = again.headers.get('set-cookie')!.split(';')[0]!;
    expect(reissued).not.toBe(changing);
    expect((await session(reissued)).body.data.account.username).toBe(username);
    expect((await session(other)).status).toBe(401);
    expect(
      (
        await svc.call('POST', '/api/v1/web/sessions', {
          body: { login: username, password: PASSWORD },
          headers: { origin: svc.addresses.baseUrl },
        })
      ).body.error.code,
    ).toBe('invalid_credentials');
  });

  it('leaves other people’s sessions alone', async () => {
    const bystander = await signIn(svc, 'mo');
    const { username } = await createUser(svc, op, `changer-${++counter}`, [{ cellId: 'cell-acme', role: 'member' }]);
    await signIn(svc, username);
    const changed = await svc.call('POST', '/api/v1/web/password', {
      body: { login: username, currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      headers: { origin: svc.addresses.baseUrl },
    });
    expect(changed.status).toBe(200);
    expect((await session(bystander)).status).toBe(200);
  });

  it('a refused change (wrong current password) ends no session', async () => {
    const { username } = await createUser(svc, op, `careless-${++counter}`, [{ cellId: 'cell-acme', role: 'member' }]);
    const cookie = await signIn(svc, username);
    const refused = await svc.call('POST', '/api/v1/web/password', {
      body: { login: username, currentPassword: 'not-the-password', newPassword: NEW_PASSWORD },
      headers: { origin: svc.addresses.baseUrl },
    });
    expect(refused.body.error.code).toBe('invalid_credentials');
    expect((await session(cookie)).status).toBe(200);
  });

  it('an operator’s password reset ends every session of the account too', async () => {
    const { id, username } = await createUser(svc, op, `reset-${++counter}`, [{ cellId: 'cell-acme', role: 'member' }]);
    const first = await signIn(svc, username);
    const second = await signIn(svc, username);
    const reset = await svc.call('PATCH', `/api/v1/admin/users/${id}`, { body: { password: NEW_PASSWORD }, headers: bearer(op) });
    expect(reset.status).toBe(200);
    for (const cookie of [first, second]) expect((await session(cookie)).body.error?.code).toBe('invalid_session');
  });
});
