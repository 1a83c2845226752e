import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { MailMessage } from '../mail/index.ts';
import { invitationMails } from './invitations.ts';

/**
 * The invitation email again for a member the company sees as pending (the first was lost or
 * expired), to the account's own address only: a pending account gets a new link (its earlier
 * links stop working), an account that already has a password the sign-in note. The caller gets
 * the message to send after the commit, never its link.
 */
export async function resendInvitation(
  db: DbOrTrx,
  ctx: { clock: Clock; baseUrl: string },
  companyId: string,
  accountId: string,
): Promise<MailMessage> {
  const member = await db
    .selectFrom('licenses as l')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .innerJoin('companies as c', 'c.id', 'l.company_id')
    .leftJoin('member_invitations as i', (j) => j.onRef('i.account_id', '=', 'l.account_id').onRef('i.company_id', '=', 'l.company_id'))
    .select(['a.id', 'a.email', 'a.status', 'c.name', 'i.account_id as invited'])
    .where('l.company_id', '=', companyId)
    .where('l.account_id', '=', accountId)
    .executeTakeFirst();
  if (!member) throw new DomainError('user_not_found', `No member ${accountId} in this company.`, { details: { accountId } });
  if (!member.invited && member.status !== 'pending') {
    throw new DomainError('conflict', 'This account is already activated (or disabled); it needs no invitation.', {
      details: { status: member.status },
    });
  }
  const pending = member.status === 'pending';
  const [message] = await invitationMails(db, ctx, member, [{ accountId: member.id, email: member.email, pending }]);
  return message!;
}
