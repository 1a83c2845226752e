import { sql } from 'kysely';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { consume, type Limit } from '../rate-limit/index.ts';
import { hashPassword, verifyPassword } from '../security/index.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { endMemberInvitations, findAccountByLogin } from './repository.ts';

type Deps = Pick<DomainDeps, 'db' | 'passwordHashing' | 'clock'>;

// The one password check behind terminal login (password-tokens) and web
// sign-in: same rate-limit buckets, same lockout counter, same answers.

export const LOGIN_LIMITS = {
  perIp: { name: 'login-ip', max: 30, windowSeconds: 60 } satisfies Limit,
  perLogin: { name: 'login-account', max: 10, windowSeconds: 60 } satisfies Limit,
};
export const LOCKOUT = { failures: 5, minutes: 15 };

// Computed once: an unknown login is checked against it so it costs what a known one does.
const dummyHashes = new Map<string, Promise<string>>();
/**
 * Computes the stand-in hash ahead of the first request (the service calls it at start), so
 * even the first unknown login costs one hash, not two.
 */
export function dummyHash(deps: Pick<DomainDeps, 'passwordHashing'>): Promise<string> {
  const key = JSON.stringify(deps.passwordHashing);
  let hash = dummyHashes.get(key);
  if (!hash) {
    hash = hashPassword('not a password of anyone', deps.passwordHashing);
    dummyHashes.set(key, hash);
  }
  return hash;
}

/** The one answer for unknown login, wrong password, locked, pending and disabled accounts. */
const invalidCredentials = () => new DomainError('invalid_credentials', 'Wrong login or password.');

export interface CheckOptions {
  /** The change-password form accepts a correct temporary password. */
  allowPasswordChange?: boolean;
}

export async function checkPassword(deps: Deps, input: { login: string; password: string; ip: string }, opts: CheckOptions = {}) {
  // Counted with the pool, outside any request transaction: failures and dry runs count too.
  await consume(deps.db, LOGIN_LIMITS.perIp, input.ip, deps.clock);
  const account = await findAccountByLogin(deps.db, input.login);
  // One bucket per account, whichever of its logins (username or email) is typed.
  await consume(deps.db, LOGIN_LIMITS.perLogin, account ? account.id : `login:${input.login.trim().toLowerCase()}`, deps.clock);

  const usable = account && account.status === 'active' && account.password_hash !== null;
  const now = deps.clock.now();
  const locked = account?.locked_until != null && account.locked_until > now;
  const stored = usable && !locked ? account.password_hash! : await dummyHash(deps);
  const matches = await verifyPassword(input.password, stored);

  if (!account || !usable || locked || !matches) {
    // Every failure runs the same UPDATE (matching no row when there is nothing to count),
    // so an unknown login costs what a known one does.
    const lockedNow = await recordFailure(deps, account && usable && !locked ? account.id : '', now);
    const reason = !account ? 'unknown_login' : locked ? 'locked' : !usable ? `account_${account.status}` : 'wrong_password';
    await recordSecurityEvent(deps.db, { kind: 'sign_in_failed', accountId: account?.id ?? null, ip: input.ip, details: { reason } });
    if (lockedNow) {
      await recordSecurityEvent(deps.db, {
        kind: 'account_locked',
        accountId: account!.id,
        ip: input.ip,
        details: { failures: LOCKOUT.failures, minutes: LOCKOUT.minutes },
      });
    }
    throw invalidCredentials();
  }
  if (account.failed_logins > 0) {
    await deps.db.updateTable('accounts').set({ failed_logins: 0 }).where('id', '=', account.id).execute();
  }
  if (!account.email_verified) {
    throw new DomainError('email_verification_required', 'Verify your email address on the web first.');
  }
  if (account.must_change_password && !opts.allowPasswordChange) {
    throw new DomainError('password_change_required', 'Your password is temporary: change it on the web sign-in page first.');
  }
  // Signed in: the companies whose import invited the person now see the account as it is.
  await endMemberInvitations(deps.db, account.id);
  return account;
}

/** Counts a failure; true when this one locked the account. */
async function recordFailure(deps: Deps, accountId: string, now: Date): Promise<boolean> {
  // One statement, so concurrent failures cannot both slip under the threshold.
  const result = await sql<{ locked: boolean }>`
    UPDATE accounts SET
      failed_logins = CASE WHEN failed_logins + 1 >= ${LOCKOUT.failures} THEN 0 ELSE failed_logins + 1 END,
      locked_until = CASE WHEN failed_logins + 1 >= ${LOCKOUT.failures}
        THEN ${now}::timestamptz + make_interval(mins => ${LOCKOUT.minutes}) ELSE locked_until END
    WHERE id = ${accountId}
    RETURNING failed_logins = 0 AS locked`.execute(deps.db);
  return result.rows[0]?.locked === true;
}
