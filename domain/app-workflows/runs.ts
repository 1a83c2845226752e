import { sql } from 'kysely';
import type { Channel, DbOrTrx, WorkflowRunStatus, WorkflowTrigger } from '../db/index.ts';

// The record of workflow runs: one row per run with its steps, and the progress events the
// watch stream sends (`seq` per app, resumable).

export type StepStatus = 'running' | 'succeeded' | 'failed' | 'skipped' | 'suppressed';

export interface StepRecord {
  id: string;
  kind: string;
  status: StepStatus;
  startedAt: string;
  durationMs: number;
  output: unknown;
  error?: string | undefined;
}

export interface NewRun {
  id: string;
  appId: string;
  versionId: string;
  channel: Channel;
  trigger: WorkflowTrigger;
  workflowId: string;
  temporalRunId?: string | null;
  input: unknown;
  idempotencyKey?: string | null;
  startedAt: Date;
}

export type RunEvent =
  | {
      type: 'run';
      runId: string;
      workflowId: string;
      trigger: WorkflowTrigger;
      status: WorkflowRunStatus;
      durationMs: number | null;
      error: string | null;
    }
  | { type: 'step'; runId: string; step: StepRecord };

export async function appendRunEvent(db: DbOrTrx, appId: string, event: RunEvent): Promise<void> {
  // Held to the commit: the app's events commit in the order of their numbers.
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`workflow-run-events:${appId}`}))`.execute(db);
  await db
    .insertInto('workflow_run_events')
    .values((eb) => ({
      app_id: appId,
      seq: eb.selectFrom('workflow_run_events').select(sql<number>`coalesce(max(seq), 0) + 1`.as('next')).where('app_id', '=', appId),
      run_id: event.runId,
      payload: JSON.stringify(event),
    }))
    .execute();
}

/** Inserts the run (status running) unless a run with its workflow id exists; returns its id. */
export async function insertRun(db: DbOrTrx, run: NewRun): Promise<{ id: string; created: boolean }> {
  const inserted = await db
    .insertInto('workflow_runs')
    .values({
      id: run.id,
      app_id: run.appId,
      version_id: run.versionId,
      channel: run.channel,
      trigger: run.trigger,
      workflow_id: run.workflowId,
      temporal_run_id: run.temporalRunId ?? null,
      status: 'running',
      input: JSON.stringify(run.input ?? {}),
      idempotency_key: run.idempotencyKey ?? null,
      started_at: run.startedAt,
    })
    .onConflict((oc) => oc.column('workflow_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) {
    await appendRunEvent(db, run.appId, {
      type: 'run',
      runId: run.id,
      workflowId: run.workflowId,
      trigger: run.trigger,
      status: 'running',
      durationMs: null,
      error: null,
    });
    return { id: inserted.id, created: true };
  }
  const existing = await db.selectFrom('workflow_runs').select('id').where('workflow_id', '=', run.workflowId).executeTakeFirstOrThrow();
  return { id: existing.id, created: false };
}

/** The Temporal run that runs an API run (made before Temporal started it), once it begins. */
export async function recordTemporalRunId(db: DbOrTrx, runId: string, temporalRunId: string | undefined): Promise<void> {
  if (temporalRunId === undefined) return;
  await db.updateTable('workflow_runs').set({ temporal_run_id: temporalRunId }).where('id', '=', runId).execute();
}

export async function findRun(db: DbOrTrx, runId: string) {
  return db.selectFrom('workflow_runs').selectAll().where('id', '=', runId).executeTakeFirst();
}

/** Writes a step's latest state (replacing an earlier state of the same step) and its event. */
export async function recordStep(db: DbOrTrx, runId: string, step: StepRecord): Promise<void> {
  const run = await db
    .selectFrom('workflow_runs')
    .select(['app_id', 'steps'])
    .where('id', '=', runId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const steps = (run.steps as StepRecord[]).filter((s) => s.id !== step.id);
  await db
    .updateTable('workflow_runs')
    .set({ steps: JSON.stringify([...steps, step]) })
    .where('id', '=', runId)
    .execute();
  await appendRunEvent(db, run.app_id, { type: 'step', runId, step });
}
