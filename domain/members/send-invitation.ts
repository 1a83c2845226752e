import type { Db } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Mailer } from '../mail/index.ts';
import { invitationMails } from './invitations.ts';
import { findInvitableMember } from './resend-invitation.ts';

/**
 * Sends one queued invitation email (worker side, from the outbox). The link is made here, in a
 * transaction of its own committed before the send, so it exists only in the message. A refusal
 * by the SMTP server throws: the caller retries, and the retry makes a new link (this one was never
 * delivered, and no longer works). A person who is no longer a pending member of the company
 * (license removed, signed in meanwhile) gets nothing: `skipped`.
 */
export async function sendMemberInvitation(
  deps: { db: Db; mailer: Mailer; clock: Clock },
  input: { companyId: string; accountId: string; baseUrl: string },
): Promise<'sent' | 'skipped' | 'recorded'> {
  if (!deps.mailer.configured) return 'recorded';
  const message = await deps.db.transaction().execute(async (trx) => {
    const member = await findInvitableMember(trx, input.companyId, input.accountId).catch((err: unknown) => {
      if (err instanceof DomainError) return undefined;
      throw err;
    });
    if (!member) return undefined;
    // Two sends for one account at once (an import and a re-send) would each leave a live link.
    await trx.selectFrom('accounts').select('id').where('id', '=', member.id).forUpdate().execute();
    const invitee = { accountId: member.id, email: member.email, pending: member.status === 'pending' };
    return (await invitationMails(trx, { clock: deps.clock, baseUrl: input.baseUrl }, member, [invitee]))[0];
  });
  if (!message) return 'skipped';
  await deps.mailer.send(message);
  return 'sent';
}
