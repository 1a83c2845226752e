import type { DbOrTrx } from '../db/index.ts';
import { revokeKeysOf, revokeTicketsOf } from '../keys/index.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { endSessionsOf } from './repository.ts';

export interface PasswordChange {
  accountId: string;
  /** Hashed before the transaction opens (scrypt is slow). */
  newHash: string;
  /** The person chose to revoke their developer keys too (say, after a leak). */
  revokeKeys: boolean;
  ip: string;
}

/**
 * A person changes their own (checked) password: every web session ends, and so does every app
 * ticket and app token (OAuth) of the account, whatever it was opened with: the person may be
 * shutting out someone who signed in as them, and tickets and tokens come back by opening the app
 * or authorizing the host again. Their keys end only when they ask, since keys often run
 * unattended in CI.
 */
export async function changePassword(db: DbOrTrx, change: PasswordChange) {
  await db
    .updateTable('accounts')
    .set({ password_hash: change.newHash, must_change_password: false })
    .where('id', '=', change.accountId)
    .execute();
  await endSessionsOf(db, change.accountId);
  await revokeTicketsOf(db, change.accountId);
  await recordSecurityEvent(db, { kind: 'password_changed', accountId: change.accountId, ip: change.ip });
  const revoked = change.revokeKeys
    ? await revokeKeysOf(db, { accountId: change.accountId, reason: 'password_change', ip: change.ip })
    : [];
  return { keysRevoked: revoked.length };
}
