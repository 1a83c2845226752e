import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import type { MemberInvitationsInput } from '../contract.ts';

// No maximum of attempts: an email queued for a member is never dropped while the SMTP server
// refuses it; the interval grows to ten minutes. Each attempt makes a new link (send-invitation.ts).
const { sendMemberInvitation } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/** How many invitation emails are in flight at once (the SMTP pool's connections). */
const SENDING_AT_ONCE = 5;

/** Sends the invitation emails one import (or re-send) queued, a few at a time; each is retried on its own. */
export async function memberInvitations(input: MemberInvitationsInput): Promise<Record<'sent' | 'skipped' | 'recorded', number>> {
  const outcomes = { sent: 0, skipped: 0, recorded: 0 };
  let next = 0;
  const sender = async () => {
    for (let i = next++; i < input.accountIds.length; i = next++) {
      outcomes[await sendMemberInvitation({ companyId: input.companyId, accountId: input.accountIds[i]!, baseUrl: input.baseUrl })]++;
    }
  };
  await Promise.all(Array.from({ length: SENDING_AT_ONCE }, sender));
  return outcomes;
}
