import type { DbOrTrx } from '../db/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';

export const TEST_NOTIFICATION = {
  subject: 'svc mail test',
  body: 'This is a test message from svc: workflow notify emails reach this address.',
  dedupeKey: 'mail-test',
} as const;

/**
 * POST /api/v1/developer/notify/test: a message to the caller's own address, recorded in the
 * caller's transaction (`sending`, or `recorded` when no SMTP is configured); the route sends it
 * after the commit (`deliverPending`), so a dry run sends nothing.
 */
export async function recordTestNotification(db: DbOrTrx, principal: Principal, emailConfigured: boolean) {
  authorize(principal, 'notify.test', {});
  const id = newId('ntf');
  const status = emailConfigured ? ('sending' as const) : ('recorded' as const);
  await db
    .insertInto('workflow_notifications')
    .values({
      id,
      app_id: null,
      run_id: null,
      step_id: null,
      recipient: principal.account.email,
      dedupe_key: TEST_NOTIFICATION.dedupeKey,
      subject: TEST_NOTIFICATION.subject,
      body: TEST_NOTIFICATION.body,
      status,
      error: null,
      created_at: new Date(),
    })
    .execute();
  return { id, to: principal.account.email, status };
}

export async function testNotificationOutcome(db: DbOrTrx, id: string) {
  return db.selectFrom('workflow_notifications').select(['recipient', 'status', 'error']).where('id', '=', id).executeTakeFirstOrThrow();
}
