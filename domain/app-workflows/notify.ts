import { createHash } from 'node:crypto';
import { type SelectQueryBuilder, sql } from 'kysely';
import { durationSeconds, type WorkflowStep } from '../../schemas/manifest/index.ts';
import type { Database, Db, DbOrTrx, NotificationStatus } from '../db/index.ts';
import { type Mailer, TemporaryMailError } from '../mail/index.ts';
import { newId } from '../security/index.ts';
import { capsOfApp, readCounters, recordUsage } from '../usage/index.ts';
import { type EvaluationUsage, evaluateStepOffThread, stepLimits } from './evaluation-threads.ts';
import type { Scope } from './expression.ts';
import { companyRecipients } from './recipients.ts';
import { findRun, recordStep } from './runs.ts';

// The notify step in three moves: render (when, subject, body, de-duplication key), the
// workflow's cooldown (a timer in a workflow per app and key, see workflows/app-workflows/run.ts),
// then send: one message per recipient, within the app's notificationsPerDay.

type NotifyStep = Extract<WorkflowStep, { kind: 'notify' }>;

export type RenderedNotification =
  | { send: false; evaluated?: EvaluationUsage | undefined }
  | {
      send: true;
      appId: string;
      subject: string;
      body: string;
      dedupeKey: string;
      dedupeHash: string;
      cooldownMs: number;
      /** What the step's expressions counted, for the run's budget. */
      evaluated: EvaluationUsage;
    };

export interface RenderInput {
  runId: string;
  step: NotifyStep;
  scope: Scope;
  /** What the run's earlier steps counted against its evaluation budget. */
  evaluated?: EvaluationUsage | undefined;
}

/** when, subject, body and de-duplication key, evaluated off the event loop (a budget overrun fails the step). */
export async function renderNotification(db: Db, { runId, step, scope, evaluated }: RenderInput): Promise<RenderedNotification> {
  const run = await findRun(db, runId);
  if (!run) return { send: false };
  const { evaluation, used } = await evaluateStepOffThread(step, scope, stepLimits(evaluated));
  if (!evaluation.run || evaluation.kind !== 'notify') {
    await recordStep(db, runId, notifyRecord(step, 'skipped', null));
    return { send: false, evaluated: used };
  }
  const { dedupeKey } = evaluation;
  return {
    send: true,
    appId: run.app_id,
    subject: evaluation.subject,
    body: evaluation.body,
    dedupeKey,
    evaluated: used,
    // Part of a workflow id: fixed length, any characters of the key.
    dedupeHash: createHash('sha256').update(dedupeKey).digest('hex').slice(0, 32),
    cooldownMs: (durationSeconds(step.cooldown) ?? 0) * 1000,
  };
}

const notifyRecord = (step: NotifyStep, status: 'skipped' | 'suppressed' | 'succeeded', output: unknown) => ({
  id: step.id,
  kind: step.kind,
  status,
  startedAt: new Date().toISOString(),
  durationMs: 0,
  output,
});

/** The key's cooldown is running: nothing is sent, the step says why. */
export async function recordSuppressed(
  db: Db,
  { runId, step, dedupeKey }: { runId: string; step: NotifyStep; dedupeKey: string },
): Promise<void> {
  await recordStep(db, runId, notifyRecord(step, 'suppressed', { dedupeKey, reason: 'cooldown' }));
}

export interface SendNotificationsInput {
  runId: string;
  step: NotifyStep;
  subject: string;
  body: string;
  dedupeKey: string;
  /** The workflow's time (ISO): the day the cap counts in. */
  at: string;
}

/** Why a recipient checked at upload gets nothing now. */
export const RECIPIENT_GONE = 'no longer an active account of the company (license removed or account disabled since upload)';

/**
 * One message per recipient. In one transaction (serialized per app, so two runs cannot both
 * take the last message of the day) each recipient gets a row: `skipped` (with the reason) when it
 * is no longer an active account of the app's company (the upload's rule, checked again now),
 * else `sending` within the cap (or `recorded` when no SMTP is configured), `blocked` past it,
 * metered as notifications.sent or .blocked. After the commit the `sending` ones are sent. Rows
 * are unique per run, step and recipient, so a retried step sends nothing twice; one left
 * `sending` by a crash is checked again and sent.
 */
export async function sendNotifications(
  db: Db,
  mailer: Mailer,
  input: SendNotificationsInput,
  /** A mail server's "try again later": thrown for the activity's retry (by default), or a failure. */
  refusedForNow: 'retry' | 'fail' = 'retry',
) {
  const at = new Date(input.at);
  const run = await findRun(db, input.runId);
  if (!run) return [];
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`notify:${run.app_id}`}))`.execute(trx);
    const existing = new Set(
      (
        await trx
          .selectFrom('workflow_notifications')
          .select('recipient')
          .where('run_id', '=', input.runId)
          .where('step_id', '=', input.step.id)
          .execute()
      ).map((r) => r.recipient),
    );
    const app = await trx.selectFrom('apps').select('company_id').where('id', '=', run.app_id).executeTakeFirstOrThrow();
    const allowed = await companyRecipients(trx, app.company_id, input.step.to);
    await trx
      .updateTable('workflow_notifications')
      .set({ status: 'skipped', error: RECIPIENT_GONE })
      .where('run_id', '=', input.runId)
      .where('step_id', '=', input.step.id)
      .where('status', '=', 'sending')
      .where(sql<string>`lower(recipient)`, 'not in', [...allowed, ''])
      .execute();
    // One cap per app and day (the manifest's notificationsPerDay, shared with automations), and
    // within it, when the step sets dailyCap, the step's own messages of the day.
    const caps = await capsOfApp(trx, run.app_id);
    let used = (await readCounters(trx, run.app_id, ['notifications.sent'], at))['notifications.sent'];
    let cap = caps.notificationsPerDay;
    if (input.step.dailyCap !== undefined) {
      const mine = await sentTodayByStep(trx, run.app_id, input.step.id, at);
      cap = Math.min(cap, used + Math.max(0, input.step.dailyCap - mine));
    }
    const rows = input.step.to
      .filter((to) => !existing.has(to))
      .map((to) => {
        const gone = !allowed.has(to.toLowerCase());
        const status: NotificationStatus = gone ? 'skipped' : used < cap ? (mailer.configured ? 'sending' : 'recorded') : 'blocked';
        if (status === 'sending' || status === 'recorded') used++;
        return {
          id: newId('ntf'),
          app_id: run.app_id,
          run_id: input.runId,
          step_id: input.step.id,
          recipient: to,
          dedupe_key: input.dedupeKey,
          subject: input.subject,
          body: input.body,
          status,
          error: gone ? RECIPIENT_GONE : null,
          created_at: at,
        };
      });
    if (rows.length === 0) return;
    await trx.insertInto('workflow_notifications').values(rows).execute();
    const count = (...statuses: NotificationStatus[]) => rows.filter((r) => statuses.includes(r.status)).length;
    await recordUsage(trx, [
      { appId: run.app_id, meter: 'notifications.sent', amount: count('sending', 'recorded'), at },
      { appId: run.app_id, meter: 'notifications.blocked', amount: count('blocked'), at },
    ]);
  });

  await deliverPending(db, mailer, (q) => q.where('run_id', '=', input.runId).where('step_id', '=', input.step.id), {
    temporary: refusedForNow,
  });
  const outcome = (
    await db
      .selectFrom('workflow_notifications')
      .select(['recipient', 'status', 'error'])
      .where('run_id', '=', input.runId)
      .where('step_id', '=', input.step.id)
      .orderBy('recipient')
      .execute()
  ).map(({ error, ...m }) => (m.status === 'skipped' ? { ...m, reason: error } : m));
  await recordStep(db, input.runId, notifyRecord(input.step, 'succeeded', { dedupeKey: input.dedupeKey, messages: outcome }));
  return outcome;
}

/** Messages of this app's step `stepId` that went out (or were recorded) since 00:00 UTC of `at`'s day. */
async function sentTodayByStep(trx: DbOrTrx, appId: string, stepId: string, at: Date): Promise<number> {
  const dayStart = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const { n } = await trx
    .selectFrom('workflow_notifications')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('app_id', '=', appId)
    .where('step_id', '=', stepId)
    .where('status', 'in', ['sending', 'sent', 'recorded'])
    .where('created_at', '>=', dayStart)
    .executeTakeFirstOrThrow();
  return Number(n);
}

type NotificationQuery = SelectQueryBuilder<Database, 'workflow_notifications', object>;

/**
 * Sends the `sending` messages the filter selects, each marked sent or failed (with the reason).
 * A message the server refuses for now (TemporaryMailError) stays `sending` with the server's
 * answer in `error`, and once the others are done this throws it: the caller's activity retries,
 * and its next attempt sends what is still `sending`. `temporary: 'fail'` (a request that cannot
 * wait) marks those failed too.
 */
export async function deliverPending(
  db: Db,
  mailer: Mailer,
  filter: (q: NotificationQuery) => NotificationQuery,
  opts: { temporary: 'retry' | 'fail' } = { temporary: 'retry' },
): Promise<void> {
  const pending = await filter(db.selectFrom('workflow_notifications'))
    .select(['id', 'recipient', 'subject', 'body'])
    .where('status', '=', 'sending')
    .execute();
  let refusedForNow: TemporaryMailError | undefined;
  for (const message of pending) {
    const status = await mailer.send({ to: message.recipient, subject: message.subject, text: message.body }).then(
      () => ({ status: 'sent' as const, error: null }),
      (err: unknown) => {
        const error = err instanceof Error ? err.message : String(err);
        if (err instanceof TemporaryMailError && opts.temporary === 'retry') {
          refusedForNow = err;
          return { status: 'sending' as const, error };
        }
        return { status: 'failed' as const, error };
      },
    );
    await db.updateTable('workflow_notifications').set(status).where('id', '=', message.id).execute();
  }
  if (refusedForNow) throw refusedForNow;
}
