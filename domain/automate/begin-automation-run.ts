import type { AutomationEffect, AutomationRunView, AutomationTrigger } from '../../schemas/automate.ts';
import type { Db, DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../security/index.ts';
import { assertTriggerMayStart } from '../usage/index.ts';
import { automationById } from './repository.ts';

export interface BeginRunInput {
  automationId: string;
  key: string;
  trigger: AutomationTrigger;
  /** The workflow's time (ISO): the cooldown and the day the cap counts in. */
  at: string;
  workflowId: string;
  temporalRunId: string;
}

export type BegunRun =
  | { start: false; runId: string | null; skipReason?: AutomationRunView['skipReason'] }
  | { start: true; runId: string; appId: string; effects: AutomationEffect[]; retries: number; objectType: string | null };

const dayStart = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));

/**
 * Records the trigger's run, once per trigger key (a repeated delivery finds it: a run still going
 * resumes, a finished one starts nothing). Under the automation's row lock, so two ticks never both
 * take the last run of the cooldown or the day, it starts effects unless the automation is disabled,
 * its app's compute minutes are used up (quota_exhausted), its cooldown since the last run that
 * started effects is running, or its daily cap of such runs is reached: those are recorded SKIPPED
 * with the reason.
 */
export async function beginAutomationRun(db: Db, input: BeginRunInput): Promise<BegunRun> {
  const at = new Date(input.at);
  return db.transaction().execute(async (trx): Promise<BegunRun> => {
    const automation = await automationById(trx, input.automationId, true);
    if (!automation) return { start: false, runId: null };
    const existing = await trx
      .selectFrom('automation_runs')
      .select(['id', 'status'])
      .where('automation_id', '=', input.automationId)
      .where('trigger_key', '=', input.key)
      .executeTakeFirst();
    const started = {
      start: true as const,
      appId: automation.app_id,
      effects: automation.effects,
      retries: automation.retries,
      objectType: automation.condition.type === 'schedule' ? null : automation.condition.objectType,
    };
    if (existing) return existing.status === 'RUNNING' ? { ...started, runId: existing.id } : { start: false, runId: existing.id };
    const skipReason = await skipReasonAt(trx, automation, at);
    const runId = newId('arn');
    await trx
      .insertInto('automation_runs')
      .values({
        id: runId,
        automation_id: input.automationId,
        trigger_key: input.key,
        trigger: JSON.stringify(input.trigger),
        status: skipReason ? 'SKIPPED' : 'RUNNING',
        skip_reason: skipReason,
        workflow_id: input.workflowId,
        temporal_run_id: input.temporalRunId,
        started_at: at,
        finished_at: skipReason ? at : null,
      })
      .execute();
    if (skipReason) return { start: false, runId, skipReason };
    await trx.updateTable('automations').set({ last_fired_at: at }).where('id', '=', input.automationId).execute();
    return { ...started, runId };
  });
}

type Automation = NonNullable<Awaited<ReturnType<typeof automationById>>>;

/** Why a trigger at `at` starts no effect, or null. */
export async function skipReasonAt(db: DbOrTrx, automation: Automation, at: Date): Promise<AutomationRunView['skipReason']> {
  if (!automation.enabled) return 'disabled';
  try {
    await assertTriggerMayStart(db, { now: () => at }, automation.app_id);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'quota_exhausted') return 'quota_exhausted';
    throw err;
  }
  if (automation.last_fired_at && at.getTime() - automation.last_fired_at.getTime() < automation.cooldown_seconds * 1000) return 'cooldown';
  const today = await db
    .selectFrom('automation_runs')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('automation_id', '=', automation.id)
    .where('status', '!=', 'SKIPPED')
    .where('started_at', '>=', dayStart(at))
    .where('started_at', '<', new Date(dayStart(at).getTime() + 86_400_000))
    .executeTakeFirstOrThrow();
  return Number(today.n) >= automation.daily_cap ? 'daily_cap' : null;
}
