import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkPassword, LOCKOUT, LOGIN_LIMITS } from '../../../domain/accounts/check-password.ts';
import { createAccount } from '../../../domain/accounts/create-account.ts';
import type { DomainDeps } from '../../../domain/deps.ts';
import { DomainError } from '../../../domain/errors.ts';
import { hashPassword, verifyPassword } from '../../../domain/security/password-hash.ts';
import { TestClock } from '../../support/clock.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

// The one password check behind terminal login and web sign-in (domain/accounts/check-password.ts).
// docs/operators/identity.md: "5 consecutive failures lock the account for 15 minutes; a locked account, a wrong
// password and an unknown login get byte-identical answers, and an unknown login still runs a
// scrypt hash." Both are checked by observation: the time comes from an injected clock, and the
// hash verification is counted through a wrapper around the real one, never by timing.

vi.mock('../../../domain/security/password-hash.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../domain/security/password-hash.ts')>();
  return { ...real, verifyPassword: vi.fn(real.verifyPassword) };
});
const verifications = vi.mocked(verifyPassword);

const HASHING = { logN: 10, r: 8, p: 1 };
const PASSWORD = 'the-right-password';
let database: TestDatabase;
let clock: TestClock;
let deps: Pick<DomainDeps, 'db' | 'passwordHashing' | 'clock'>;
let ipCounter = 0;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());
beforeEach(() => {
  // A fixed instant, 15 s before its minute ends, and a fresh caller address per test.
  clock = new TestClock('2031-03-04T05:06:45.000Z');
  deps = { db: database.db, passwordHashing: HASHING, clock };
  verifications.mockClear();
});

async function account(username: string, opts: { password?: string | null; status?: 'disabled' } = {}): Promise<string> {
  const password = opts.password === undefined ? PASSWORD : opts.password;
  const id = await createAccount(database.db, {
    username,
    email: `${username}@example.com`,
    passwordHash: password === null ? null : await hashPassword(password, HASHING),
    emailVerified: true,
    mustChangePassword: false,
    licenses: [],
  });
  if (opts.status) await database.db.updateTable('accounts').set({ status: opts.status }).where('id', '=', id).execute();
  return id;
}

/** What a login attempt answers: the account's id, or the failure's code and message. */
async function attempt(login: string, password: string, ip = `192.0.2.${++ipCounter}`) {
  try {
    return { ok: (await checkPassword(deps, { login, password, ip })).id };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { code: err.code, message: err.message, retryAfterSeconds: err.retryAfterSeconds };
  }
}

const INVALID = { code: 'invalid_credentials', message: 'Wrong login or password.', retryAfterSeconds: undefined };

describe('an unknown login still runs the password hash', () => {
  it('verifies exactly one hash, of the same cost as a real one, for every kind of refusal and for success', async () => {
    const active = await account('hash-active');
    await account('hash-disabled', { status: 'disabled' });
    await account('hash-pending', { password: null });
    await account('hash-locked');
    for (let i = 0; i < LOCKOUT.failures; i++) await attempt('hash-locked', 'wrong');
    const stored = await database.db.selectFrom('accounts').select('password_hash').where('id', '=', active).executeTakeFirstOrThrow();
    const cost = (hash: string) => hash.split('$').slice(0, 4).join('$'); // scrypt$logN$r$p
    expect(cost(stored.password_hash!)).toBe('scrypt$10$8$1');

    const cases: [string, string, string][] = [
      ['right password', 'hash-active', PASSWORD],
      ['wrong password', 'hash-active', 'wrong'],
      ['unknown login', 'hash-nobody', PASSWORD],
      ['disabled account, right password', 'hash-disabled', PASSWORD],
      ['pending account (no password yet)', 'hash-pending', PASSWORD],
      ['locked account, right password', 'hash-locked', PASSWORD],
    ];
    const seen: Record<string, unknown> = {};
    for (const [what, login, password] of cases) {
      verifications.mockClear();
      const answer = await attempt(login, password);
      seen[what] = {
        answer: 'ok' in answer ? 'signed in' : answer,
        verifications: verifications.mock.calls.length,
        cost: verifications.mock.calls.map(([, hash]) => cost(hash)),
      };
    }
    const refused = { answer: INVALID, verifications: 1, cost: ['scrypt$10$8$1'] };
    expect(seen).toEqual({
      'right password': { answer: 'signed in', verifications: 1, cost: ['scrypt$10$8$1'] },
      'wrong password': refused,
      'unknown login': refused,
      'disabled account, right password': refused,
      'pending account (no password yet)': refused,
      'locked account, right password': refused,
    });
  });

  it('never checks the password against the account’s own hash while it is locked or disabled', async () => {
    // The hash verified for a locked or disabled account is the stand-in one, so even the right
    // password cannot tell such an account apart from an unknown login.
    await account('own-disabled', { status: 'disabled' });
    await account('own-locked');
    for (let i = 0; i < LOCKOUT.failures; i++) await attempt('own-locked', 'wrong');
    const hashes = await database.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('username', 'in', ['own-disabled', 'own-locked'])
      .execute();
    verifications.mockClear();
    await attempt('own-disabled', PASSWORD);
    await attempt('own-locked', PASSWORD);
    await attempt('own-nobody', PASSWORD);
    const verified = verifications.mock.calls.map(([, hash]) => hash);
    expect(verified).toHaveLength(3);
    for (const { password_hash } of hashes) expect(verified).not.toContain(password_hash);
    expect(new Set(verified).size).toBe(1); // one stand-in hash for all three
  });
});

describe('lockout', () => {
  it('is set by exactly 5 consecutive failures: 4 then a success reset the count', async () => {
    const id = await account('five');
    for (let i = 0; i < LOCKOUT.failures - 1; i++) expect(await attempt('five', 'wrong')).toEqual(INVALID);
    expect(await attempt('five', PASSWORD)).toEqual({ ok: id });

    clock.advance({ minutes: 1 }); // a new per-login window: only the lockout is under test here
    for (let i = 0; i < LOCKOUT.failures - 1; i++) await attempt('five', 'wrong');
    expect(await attempt('five', PASSWORD)).toEqual({ ok: id });

    clock.advance({ minutes: 1 });
    for (let i = 0; i < LOCKOUT.failures; i++) await attempt('five', 'wrong');
    expect(await attempt('five', PASSWORD)).toEqual(INVALID);
  });

  it('lasts exactly 15 minutes by the clock: locked at 14:59 and at 14:59.999, open at 15:00', async () => {
    expect(LOCKOUT).toEqual({ failures: 5, minutes: 15 });
    const id = await account('fifteen');
    const lockedAt = clock.now();
    for (let i = 0; i < 5; i++) await attempt('fifteen', 'wrong');
    expect(await attempt('fifteen', PASSWORD)).toEqual(INVALID);

    clock.set(new Date(lockedAt.getTime() + (14 * 60 + 59) * 1000));
    expect(await attempt('fifteen', PASSWORD)).toEqual(INVALID);
    clock.set(new Date(lockedAt.getTime() + 15 * 60_000 - 1));
    expect(await attempt('fifteen', PASSWORD)).toEqual(INVALID);
    clock.set(new Date(lockedAt.getTime() + 15 * 60_000));
    expect(await attempt('fifteen', PASSWORD)).toEqual({ ok: id });
  });

  it('starts counting afresh after a lockout ends', async () => {
    const id = await account('again');
    const lockedAt = clock.now();
    for (let i = 0; i < 5; i++) await attempt('again', 'wrong');
    clock.set(new Date(lockedAt.getTime() + 15 * 60_000));
    for (let i = 0; i < 4; i++) expect(await attempt('again', 'wrong')).toEqual(INVALID);
    expect(await attempt('again', PASSWORD)).toEqual({ ok: id });
  });
});

describe('login rate limits', () => {
  it('are 30 per IP and 10 per login per minute', () => {
    expect(LOGIN_LIMITS).toEqual({
      perIp: { name: 'login-ip', max: 30, windowSeconds: 60 },
      perLogin: { name: 'login-account', max: 10, windowSeconds: 60 },
    });
  });

  it('refuse the 11th attempt for one login in a minute (any case, any address), with the seconds left by the clock', async () => {
    for (let i = 0; i < 10; i++) expect(await attempt(i % 2 ? 'Limited-Login' : ' limited-login ', 'x')).toEqual(INVALID);
    expect(await attempt('LIMITED-LOGIN', 'x')).toEqual({
      code: 'rate_limited',
      message: expect.any(String),
      retryAfterSeconds: 15,
    });
    clock.set('2031-03-04T05:07:00.000Z');
    expect(await attempt('limited-login', 'x')).toEqual(INVALID);
  });

  it('refuse the 31st attempt from one address in a minute, whatever the logins', async () => {
    const ip = '198.51.100.7';
    for (let i = 0; i < 30; i++) expect(await attempt(`ip-login-${i}`, 'x', ip)).toEqual(INVALID);
    expect(await attempt('ip-login-30', 'x', ip)).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 15 });
    expect(await attempt('ip-login-0', 'x', '198.51.100.8')).toEqual(INVALID);
    clock.set('2031-03-04T05:07:00.000Z');
    expect(await attempt('ip-login-31', 'x', ip)).toEqual(INVALID);
  });
});
