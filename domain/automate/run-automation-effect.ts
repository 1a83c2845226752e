import { sql } from 'kysely';
import type { AutomationEffect, EffectOutcome, ParameterSource } from '../../schemas/automate.ts';
import type { OntologyObject } from '../../schemas/ontology.ts';
import { companyRecipients, deliverPending } from '../app-workflows/index.ts';
import { licensesOf } from '../companies/index.ts';
import type { Db, DbOrTrx, NotificationStatus } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Mailer } from '../mail/index.ts';
import { applyAction, withStates } from '../ontology/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { capsOfApp, readCounters, recordUsage } from '../usage/index.ts';
import { automationById, type StoredAutomation } from './repository.ts';

export interface EffectDeps {
  db: Db;
  clock: Clock;
  mailer: Mailer;
}

export interface RunEffectInput {
  runId: string;
  index: number;
  effect: AutomationEffect;
  /** This attempt of the activity (1 = first). */
  attempt: number;
  /** A mail server's "try again later": thrown for the activity's retry, or (its last attempt) the message's failure. */
  refusedForNow: 'retry' | 'fail';
  /** The workflow's time (ISO): the day the notification cap counts in. */
  at: string;
}

/** The outcome of one effect, appended to the run in the caller's transaction. */
export async function recordEffect(db: DbOrTrx, runId: string, outcome: EffectOutcome): Promise<void> {
  await db
    .updateTable('automation_runs')
    .set({ effects: sql`effects || ${JSON.stringify([outcome])}::jsonb` })
    .where('id', '=', runId)
    .execute();
}

async function recordedOutcome(db: DbOrTrx, runId: string, index: number): Promise<EffectOutcome | undefined> {
  const run = await db.selectFrom('automation_runs').select('effects').where('id', '=', runId).forUpdate().executeTakeFirst();
  return (run?.effects as EffectOutcome[] | undefined)?.find((e) => e.index === index);
}

/** The object the trigger is about, as its change left it (before it, when removed); null for schedules and thresholds. */
async function triggerObject(db: DbOrTrx, runId: string): Promise<OntologyObject | null> {
  const run = await db.selectFrom('automation_runs').select('trigger').where('id', '=', runId).executeTakeFirstOrThrow();
  const seq = (run.trigger as { seq?: number }).seq;
  if (seq === undefined) return null;
  const row = await db
    .selectFrom('ontology_changes')
    .select(['seq', 'company_id', 'object_type_id', 'primary_key', 'state'])
    .where('seq', '=', seq)
    .executeTakeFirst();
  if (!row) return null;
  const [change] = await withStates(db, [{ ...row, seq: Number(row.seq) }]);
  return (change?.after ?? change?.before ?? null) as OntologyObject | null;
}

/**
 * The automation acts as its owner, the developer who last saved it, with the licenses the
 * account holds now: an owner disabled or no longer a developer there runs nothing (forbidden).
 */
async function ownerPrincipal(db: DbOrTrx, automation: StoredAutomation): Promise<Principal> {
  const account = automation.owner_id
    ? await db
        .selectFrom('accounts')
        .select(['id', 'username', 'email', 'platform_staff', 'status'])
        .where('id', '=', automation.owner_id)
        .executeTakeFirst()
    : undefined;
  if (account?.status !== 'active') {
    throw new DomainError('forbidden', 'The automation’s owner is no longer an active account: save it again as an active developer.');
  }
  const licenses = (await licensesOf(db, account.id)).map((l) => ({ companyId: l.companyId, cellId: l.cellId, role: l.role }));
  return {
    kind: 'session',
    account: { id: account.id, username: account.username, email: account.email, platformStaff: account.platform_staff },
    sessionHash: Buffer.alloc(0),
    licenses,
  };
}

function parameterValue(source: ParameterSource, object: OntologyObject | null): unknown {
  if (source.from === 'value') return source.value;
  if (!object) return null;
  return source.from === 'primaryKey' ? object.__primaryKey : Object.hasOwn(object, source.property) ? object[source.property] : null;
}

/** The action's parameters from the trigger's object. */
export function actionParameters(effect: Extract<AutomationEffect, { type: 'action' }>, object: OntologyObject | null) {
  return Object.fromEntries(Object.entries(effect.parameters).map(([name, source]) => [name, parameterValue(source, object)]));
}

/** `{{property}}` replaced by the object's value (nothing for an absent one), cut to `max`. */
export function renderTemplate(template: string, object: OntologyObject | null, max: number): string {
  return template
    .replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,62})\s*\}\}/g, (_, name: string) => {
      const value = object && Object.hasOwn(object, name) ? object[name] : '';
      return typeof value === 'string' ? value : JSON.stringify(value ?? '');
    })
    .slice(0, max);
}

/**
 * The effect's time on the worker, metered as the owning app's compute (compute.workflow, as its
 * workflows' steps, at least a millisecond) in the month of the run, with the effect's outcome: a
 * retried activity meters nothing twice, and used-up minutes stop the automation's next runs.
 */
async function meterEffect(trx: DbOrTrx, runId: string, startedMs: number, at: string): Promise<void> {
  const { app_id } = await trx
    .selectFrom('automation_runs as r')
    .innerJoin('automations as a', 'a.id', 'r.automation_id')
    .select('a.app_id')
    .where('r.id', '=', runId)
    .executeTakeFirstOrThrow();
  const amount = Math.max(1, Math.round(performance.now() - startedMs));
  await recordUsage(trx, [{ appId: app_id, meter: 'compute.workflow', amount, at: new Date(at) }]);
}

/**
 * One effect of a run, exactly once: its outcome is recorded in the transaction that does it (an
 * action's edits, a notification's messages) with its compute, so a retried activity finds it
 * done. A refusal no retry changes (an invalid action, a forbidden owner) is a FAILED outcome;
 * anything else (the database, the mail server) is thrown for the activity's retry.
 */
export async function runAutomationEffect(deps: EffectDeps, input: RunEffectInput): Promise<EffectOutcome> {
  const { effect } = input;
  const started = performance.now();
  try {
    const outcome = await deps.db.transaction().execute(async (trx) => {
      const done = await recordedOutcome(trx, input.runId, input.index);
      if (done) return done;
      const output = await perform(deps, trx, input);
      const result: EffectOutcome = { index: input.index, type: effect.type, status: 'SUCCEEDED', attempts: input.attempt, output };
      await recordEffect(trx, input.runId, result);
      await meterEffect(trx, input.runId, started, input.at);
      return result;
    });
    if (effect.type === 'notify')
      await deliverPending(deps.db, deps.mailer, (q) => q.where('run_id', '=', input.runId), { temporary: input.refusedForNow });
    return outcome;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const failed: EffectOutcome = { index: input.index, type: effect.type, status: 'FAILED', attempts: input.attempt, error: err.message };
    await deps.db.transaction().execute(async (trx) => {
      await recordEffect(trx, input.runId, failed);
      await meterEffect(trx, input.runId, started, input.at);
    });
    return failed;
  }
}

async function perform(deps: EffectDeps, trx: DbOrTrx, input: RunEffectInput): Promise<unknown> {
  const run = await trx.selectFrom('automation_runs').select('automation_id').where('id', '=', input.runId).executeTakeFirstOrThrow();
  const automation = await automationById(trx, run.automation_id);
  if (!automation) throw new DomainError('automation_not_found', 'The automation was deleted while its run went on.');
  const object = await triggerObject(trx, input.runId);
  const { effect } = input;
  switch (effect.type) {
    case 'action': {
      const principal = await ownerPrincipal(trx, automation);
      const result = await applyAction(
        { db: trx, clock: deps.clock },
        { principal, app: { namespace: automation.cell_id, slug: automation.app_slug } },
        automation.cell_id,
        effect.action,
        { parameters: actionParameters(effect, object), options: { mode: 'VALIDATE_AND_EXECUTE', returnEdits: 'NONE' } },
      );
      if (!('operationId' in result)) {
        throw new DomainError('action_invalid', `${effect.action} refused its parameters.`, { details: { validation: result.validation } });
      }
      return { operationId: result.operationId };
    }
    case 'notify':
      return { messages: await queueNotifications(trx, deps.mailer, automation, input, effect, object) };
    case 'appWorkflow':
      // Started by the workflow itself (a child run); the activity only records it.
      return null;
  }
}

/**
 * The notify rules of app workflows: one message per recipient who is an active account of the
 * company now (others skipped with the reason), within the owning app's notificationsPerDay shared
 * with its workflows' notify steps (serialized per app by the same lock), past it recorded blocked.
 */
async function queueNotifications(
  trx: DbOrTrx,
  mailer: Mailer,
  automation: StoredAutomation,
  input: RunEffectInput,
  effect: Extract<AutomationEffect, { type: 'notify' }>,
  object: OntologyObject | null,
) {
  const at = new Date(input.at);
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`notify:${automation.app_id}`}))`.execute(trx);
  const allowed = await companyRecipients(trx, automation.company_id, effect.to);
  const cap = (await capsOfApp(trx, automation.app_id)).notificationsPerDay;
  let used = (await readCounters(trx, automation.app_id, ['notifications.sent'], at))['notifications.sent'];
  const subject = renderTemplate(effect.subject, object, 250);
  const body = renderTemplate(effect.body, object, 1000);
  const rows = [...new Set(effect.to.map((to) => to.toLowerCase()))].map((to) => {
    const gone = !allowed.has(to);
    const status: NotificationStatus = gone ? 'skipped' : used < cap ? (mailer.configured ? 'sending' : 'recorded') : 'blocked';
    if (status === 'sending' || status === 'recorded') used++;
    return {
      id: newId('ntf'),
      app_id: automation.app_id,
      run_id: input.runId,
      step_id: `effect-${input.index}`,
      recipient: to,
      dedupe_key: `automation:${automation.id}`,
      subject,
      body,
      status,
      error: gone ? 'not an active account of the company' : null,
      created_at: at,
    };
  });
  await trx.insertInto('workflow_notifications').values(rows).execute();
  const count = (...statuses: NotificationStatus[]) => rows.filter((r) => statuses.includes(r.status)).length;
  await recordUsage(trx, [
    { appId: automation.app_id, meter: 'notifications.sent', amount: count('sending', 'recorded'), at },
    { appId: automation.app_id, meter: 'notifications.blocked', amount: count('blocked'), at },
  ]);
  return rows.map((r) => ({ recipient: r.recipient, status: r.status }));
}
