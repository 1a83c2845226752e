import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Mailer, MailMessage } from '../mail/index.ts';
import { randomBase62, sha256 } from '../security/index.ts';

/** How long an invitation link lets a pending account set its first password. */
export const INVITATION_DAYS = 7;
export const INVITATION_PATTERN = /^[0-9A-Za-z]{33}$/;

/**
 * What became of one invitation email: handed to the SMTP server, refused by it, or `recorded`
 * (no SMTP server is configured: nothing was sent and the link exists nowhere, see README Members).
 */
export type InvitationStatus = 'sent' | 'failed' | 'recorded';

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

/** How many invitation emails are in flight at once (the SMTP pool's connections). */
const SENDING_AT_ONCE = 5;

/**
 * Sends invitation emails after the commit, a few at a time; a refusal is `failed` with its reason
 * (for the operator's log) and never stops the others. Without SMTP every one is `recorded`.
 */
export async function sendInvitations(
  mailer: Mailer,
  messages: readonly MailMessage[],
): Promise<{ email: string; status: InvitationStatus; error?: string }[]> {
  const outcomes: { email: string; status: InvitationStatus; error?: string }[] = new Array(messages.length);
  let next = 0;
  const sender = async () => {
    for (let i = next++; i < messages.length; i = next++) {
      const message = messages[i]!;
      outcomes[i] = !mailer.configured
        ? { email: message.to, status: 'recorded' }
        : await mailer.send(message).then(
            () => ({ email: message.to, status: 'sent' as const }),
            (err: unknown) => ({ email: message.to, status: 'failed' as const, error: err instanceof Error ? err.message : String(err) }),
          );
    }
  };
  await Promise.all(Array.from({ length: SENDING_AT_ONCE }, sender));
  return outcomes;
}
