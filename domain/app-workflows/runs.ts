import { sql } from 'kysely';
import { type Channel, type Db, type DbOrTrx, groupCommit, type WorkflowRunStatus, type WorkflowTrigger } from '../db/index.ts';

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

/** The app's events numbered on from its last, in this order, in one statement. */
export async function appendRunEvents(db: DbOrTrx, appId: string, events: readonly RunEvent[]): Promise<void> {
  // Held to the commit: the app's events commit in the order of their numbers.
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`workflow-run-events:${appId}`}))`.execute(db);
  await sql`
    INSERT INTO workflow_run_events (app_id, seq, run_id, payload)
    SELECT ${appId}, last.seq + e.n, e.run_id, e.payload::jsonb
      FROM (SELECT coalesce(max(seq), 0) AS seq FROM workflow_run_events WHERE app_id = ${appId}) AS last,
           unnest(${events.map((e) => e.runId)}::text[], ${events.map((e) => JSON.stringify(e))}::text[]) WITH ORDINALITY AS e(run_id, payload, n)`.execute(
    db,
  );
}

/** Inserts the run (status running) unless a run with its workflow id exists; returns its id. */
export async function insertRun(db: DbOrTrx, run: NewRun): Promise<{ id: string; created: boolean }> {
  return (await insertRuns(db, [run]))[0]!;
}

/**
 * insertRun in its own transaction, grouped with the runs other activities begin meanwhile
 * (`groupCommit`), as their steps are.
 */
export const beginRunRecord = groupCommit<NewRun, { id: string; created: boolean }>((db, batch) =>
  db.transaction().execute((trx) => insertRuns(trx, batch)),
);

async function insertRuns(db: DbOrTrx, batch: readonly NewRun[]): Promise<{ id: string; created: boolean }[]> {
  const inserted = await db
    .insertInto('workflow_runs')
    .values(
      batch.map((run) => ({
        id: run.id,
        app_id: run.appId,
        version_id: run.versionId,
        channel: run.channel,
        trigger: run.trigger,
        workflow_id: run.workflowId,
        temporal_run_id: run.temporalRunId ?? null,
        status: 'running' as const,
        input: JSON.stringify(run.input ?? {}),
        idempotency_key: run.idempotencyKey ?? null,
        started_at: run.startedAt,
      })),
    )
    .onConflict((oc) => oc.column('workflow_id').doNothing())
    .returning('id')
    .execute();
  const created = new Set(inserted.map((r) => r.id));
  const events = new Map<string, RunEvent[]>();
  for (const run of batch.filter((r) => created.has(r.id))) {
    const appEvents = events.get(run.appId) ?? [];
    appEvents.push({
      type: 'run',
      runId: run.id,
      workflowId: run.workflowId,
      trigger: run.trigger,
      status: 'running',
      durationMs: null,
      error: null,
    });
    events.set(run.appId, appEvents);
  }
  for (const appId of [...events.keys()].sort()) await appendRunEvents(db, appId, events.get(appId)!);
  const others = batch.filter((r) => !created.has(r.id)).map((r) => r.workflowId);
  const existing =
    others.length === 0
      ? new Map<string, string>()
      : new Map(
          (await db.selectFrom('workflow_runs').select(['id', 'workflow_id']).where('workflow_id', 'in', others).execute()).map((r) => [
            r.workflow_id,
            r.id,
          ]),
        );
  return batch.map((run) => (created.has(run.id) ? { id: run.id, created: true } : { id: existing.get(run.workflowId)!, created: false }));
}

/** The Temporal run that runs an API run (made before Temporal started it), once it begins. */
export async function recordTemporalRunId(db: DbOrTrx, runId: string, temporalRunId: string | undefined): Promise<void> {
  if (temporalRunId === undefined) return;
  await db.updateTable('workflow_runs').set({ temporal_run_id: temporalRunId }).where('id', '=', runId).execute();
}

export async function findRun(db: DbOrTrx, runId: string) {
  return db.selectFrom('workflow_runs').selectAll().where('id', '=', runId).executeTakeFirst();
}

/**
 * Writes a step's latest state (replacing an earlier state of the same step) and its event. Steps
 * recorded while a transaction is in flight go together in the next one (`groupCommit`): the app's
 * event lock, held to the commit, is then taken once per batch, so an app's concurrent runs no
 * longer queue one commit per step.
 */
export function recordStep(db: Db, runId: string, step: StepRecord): Promise<void> {
  return writeStep(db, { runId, step });
}

type StepWrite = { runId: string; step: StepRecord };
const writeStep = groupCommit<StepWrite>((db, batch) => db.transaction().execute((trx) => writeSteps(trx, batch)));

async function writeSteps(trx: DbOrTrx, batch: readonly StepWrite[]): Promise<void> {
  // Rows, then apps' event locks, each in key order: two processes' batches never wait on each other in a circle.
  const ids = [...new Set(batch.map((w) => w.runId))].sort();
  const rows = await trx
    .selectFrom('workflow_runs')
    .select(['id', 'app_id', 'steps'])
    .where('id', 'in', ids)
    .orderBy('id')
    .forUpdate()
    .execute();
  const runs = new Map(rows.map((r) => [r.id, { appId: r.app_id, steps: r.steps as StepRecord[] }]));
  const events = new Map<string, RunEvent[]>();
  for (const { runId, step } of batch) {
    const run = runs.get(runId);
    if (!run) throw new Error(`workflow run ${runId} not found`);
    run.steps = [...run.steps.filter((s) => s.id !== step.id), step];
    const appEvents = events.get(run.appId) ?? [];
    appEvents.push({ type: 'step', runId, step });
    events.set(run.appId, appEvents);
  }
  await sql`
    UPDATE workflow_runs AS r SET steps = v.steps::jsonb
      FROM unnest(${ids}::text[], ${ids.map((id) => JSON.stringify(runs.get(id)!.steps))}::text[]) AS v(id, steps)
     WHERE r.id = v.id`.execute(trx);
  for (const appId of [...events.keys()].sort()) await appendRunEvents(trx, appId, events.get(appId)!);
}
