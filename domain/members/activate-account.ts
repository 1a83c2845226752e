import { endMemberInvitations } from '../accounts/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { equalHashes, sha256 } from '../security/index.ts';
import { INVITATION_PATTERN } from './invitations.ts';

/**
 * Uses an invitation: the pending account gets its first password and becomes active (its email is
 * taken as verified: the link reached its owner). Every invitation of the account ends.
 */
export async function activateAccount(db: DbOrTrx, clock: Clock, token: string, passwordHash: string) {
  const invalid = () => new DomainError('invalid_credentials', 'This invitation link is not valid: it was used, has expired or is wrong.');
  if (!INVITATION_PATTERN.test(token)) throw invalid();
  const hash = sha256(token);
  const row = await db
    .selectFrom('account_invitations as i')
    .innerJoin('accounts as a', 'a.id', 'i.account_id')
    .select(['i.hash', 'i.expires_at', 'a.id', 'a.username', 'a.email', 'a.status'])
    .where('i.hash', '=', hash)
    .forUpdate()
    .executeTakeFirst();
  if (!row || !equalHashes(row.hash, hash) || row.expires_at <= clock.now() || row.status !== 'pending') throw invalid();
  await db
    .updateTable('accounts')
    .set({ password_hash: passwordHash, status: 'active', email_verified: true, must_change_password: false })
    .where('id', '=', row.id)
    .execute();
  await db.deleteFrom('account_invitations').where('account_id', '=', row.id).execute();
  await endMemberInvitations(db, row.id);
  return { accountId: row.id, username: row.username, email: row.email };
}
