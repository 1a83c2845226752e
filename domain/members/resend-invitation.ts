import type { Db, DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { consume, type Limit } from '../rate-limit/index.ts';
import { type InvitationStatus, queueInvitations } from './invitations.ts';

/**
 * Re-sends per hour: for one member (each re-send ends the earlier link and mails the person again,
 * so more only pesters them) and for one company (a developer looping over its members).
 */
export const RESEND_LIMITS = {
  perMember: { name: 'invitation-resend-member', max: 5, windowSeconds: 3600 },
  perCompany: { name: 'invitation-resend-company', max: 200, windowSeconds: 3600 },
} satisfies Record<string, Limit>;

/** Counts one re-send against both budgets, on the pool (a refused or dry-run request counts too); rate_limited with Retry-After past either. */
export async function consumeResendBudget(db: Db, clock: Clock, companyId: string, accountId: string): Promise<void> {
  await consume(db, RESEND_LIMITS.perCompany, companyId, clock);
  await consume(db, RESEND_LIMITS.perMember, `${companyId}:${accountId}`, clock);
}

/**
 * A member the company may (still) invite: one it sees as pending (imported and not signed in
 * since, or an account without a password). user_not_found or conflict otherwise.
 */
export async function findInvitableMember(db: DbOrTrx, companyId: string, accountId: string) {
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
  return member;
}

/**
 * The invitation email again for a member the company sees as pending (the first was lost or
 * expired), to the account's own address only, queued to go out after the commit: a pending
 * account gets a new link then (its earlier links stop working), an account that already has a
 * password the sign-in note. The caller never sees the link.
 */
export async function resendInvitation(
  db: DbOrTrx,
  ctx: { baseUrl: string; mailConfigured: boolean },
  companyId: string,
  accountId: string,
): Promise<{ email: string; status: InvitationStatus }> {
  const member = await findInvitableMember(db, companyId, accountId);
  const [queued] = await queueInvitations(db, ctx, companyId, [{ accountId: member.id, email: member.email }]);
  return queued!;
}
