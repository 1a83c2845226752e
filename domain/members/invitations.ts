import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { MailMessage } from '../mail/index.ts';
import { enqueue } from '../outbox/index.ts';
import { newId, randomBase62, sha256 } from '../security/index.ts';

/** How long an invitation link lets a pending account set its first password. */
export const INVITATION_DAYS = 7;
export const INVITATION_PATTERN = /^[0-9A-Za-z]{33}$/;

/**
 * What the answer says of one invitation email: `queued` (sent after the commit by the worker,
 * retried until the SMTP server takes it, send-invitation.ts) or `recorded` (no SMTP server is
 * configured: nothing is sent and no link exists, see docs/app-developers/sharing.md, Members).
 */
export type InvitationStatus = 'queued' | 'recorded';

/**
 * Queues the invitation emails of these members in the caller's transaction (the outbox): they go
 * out once it commits, never in a dry run, and a request never waits for SMTP. Without SMTP
 * nothing is queued. Answers each email's status.
 */
export async function queueInvitations(
  trx: DbOrTrx,
  ctx: { baseUrl: string; mailConfigured: boolean },
  companyId: string,
  invitees: readonly { accountId: string; email: string }[],
): Promise<{ email: string; status: InvitationStatus }[]> {
  if (invitees.length > 0 && ctx.mailConfigured) {
    const accountIds = invitees.map((i) => i.accountId);
    await enqueue(trx, { topic: 'members.invited', key: newId('inv'), payload: { companyId, accountIds, baseUrl: ctx.baseUrl } });
  }
  return invitees.map((i) => ({ email: i.email, status: ctx.mailConfigured ? 'queued' : 'recorded' }));
}

export interface Invitee {
  accountId: string;
  email: string;
  /** A pending account (no password yet) gets a link to choose one; an active one a sign-in note. */
  pending: boolean;
}

/**
 * The emails that invite people into a company. A pending account gets a new link (its earlier
 * links end: one live link per account) whose token exists only in the message: the database
 * keeps its SHA-256, and no answer, log or table holds it. Whoever imported the person never sees
 * it, so only the owner of the mailbox can set the password, which is what verifies the email.
 */
export async function invitationMails(
  db: DbOrTrx,
  ctx: { clock: Clock; baseUrl: string },
  company: { name: string },
  invitees: readonly Invitee[],
): Promise<MailMessage[]> {
  const subject = `You are invited to ${company.name} on svc`;
  const expiresAt = new Date(ctx.clock.now().getTime() + INVITATION_DAYS * 24 * 60 * 60 * 1000);
  const links = invitees.filter((i) => i.pending).map((i) => ({ accountId: i.accountId, token: randomBase62(24) }));
  if (links.length > 0) {
    const accountIds = links.map((l) => l.accountId);
    await db.deleteFrom('account_invitations').where('account_id', 'in', accountIds).execute();
    await db
      .insertInto('account_invitations')
      .values(links.map((l) => ({ hash: sha256(l.token), account_id: l.accountId, expires_at: expiresAt })))
      .execute();
  }
  const tokens = new Map(links.map((l) => [l.accountId, l.token]));
  return invitees.map((i) => {
    const token = tokens.get(i.accountId);
    const text = token
      ? `${company.name} added you as a member on svc. Choose your password to activate your account:\n\n` +
        `${ctx.baseUrl}/signin?invitation=${token}\n\n` +
        `The link works once, until ${expiresAt.toISOString()}. If you did not expect this email, ignore it.\n`
      : `${company.name} added you as a member on svc. Sign in with your svc account: ${ctx.baseUrl}/signin\n`;
    return { to: i.email, subject, text };
  });
}
