import type { DbOrTrx } from '../db/database.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { newInvitation } from './invitations.ts';

/**
 * A new invitation link for a pending member of the company (the first was lost or expired); the
 * earlier links of that account stop working.
 */
export async function reissueInvitation(db: DbOrTrx, ctx: { clock: Clock; baseUrl: string }, companyId: string, accountId: string) {
  const account = await db
    .selectFrom('licenses as l')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .select(['a.id', 'a.email', 'a.status'])
    .where('l.company_id', '=', companyId)
    .where('l.account_id', '=', accountId)
    .executeTakeFirst();
  if (!account) throw new DomainError('user_not_found', `No member ${accountId} in this company.`, { details: { accountId } });
  if (account.status !== 'pending') {
    throw new DomainError('conflict', 'This account is already activated (or disabled); it needs no invitation.', {
      details: { status: account.status },
    });
  }
  await db.deleteFrom('account_invitations').where('account_id', '=', accountId).execute();
  const invitation = newInvitation(ctx.clock, ctx.baseUrl);
  await db
    .insertInto('account_invitations')
    .values({ hash: invitation.hash, account_id: accountId, expires_at: invitation.expiresAt })
    .execute();
  return { email: account.email, url: invitation.url, expiresAt: invitation.expiresAt.toISOString() };
}
