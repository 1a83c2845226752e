import type { Db } from '../domain/db/index.ts';
import { systemClock } from '../domain/deps.ts';
import type { Mailer } from '../domain/mail/index.ts';
import { sendMemberInvitation } from '../domain/members/index.ts';

export function createMemberActivities(deps: { db: Db; mailer: Mailer }) {
  return {
    /** One queued invitation email; an SMTP refusal throws, so Temporal retries it. */
    sendMemberInvitation: (input: { companyId: string; accountId: string; baseUrl: string }) =>
      sendMemberInvitation({ db: deps.db, mailer: deps.mailer, clock: systemClock }, input),
  };
}
