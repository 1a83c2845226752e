import { type Db, type DbOrTrx, groupCommit, type WorkflowRunStatus } from '../db/index.ts';
import { recordUsage, type UsageIncrement } from '../usage/index.ts';
import { appendRunEvents, type RunEvent, type StepRecord } from './runs.ts';

export interface FinishRunInput {
  runId: string;
  status: Exclude<WorkflowRunStatus, 'running'>;
  output: unknown;
  error?: string | undefined;
  /** The workflow's time (ISO) at the end. */
  at: string;
}

/**
 * Closes the run: status, output, duration (the workflow's time from start to end) and its
 * compute minutes (compute.workflow: the time its steps ran on the worker) in the month it
 * started. Idempotent: a run already closed stays as it is. Runs closed while a transaction is in
 * flight are closed together in the next one (`groupCommit`), like their steps.
 */
export function finishRun(db: Db, input: FinishRunInput): Promise<void> {
  return closeRun(db, input);
}

const closeRun = groupCommit<FinishRunInput>((db, batch) => db.transaction().execute((trx) => closeRuns(trx, batch)));

async function closeRuns(trx: DbOrTrx, batch: readonly FinishRunInput[]): Promise<void> {
  // Rows, then usage counters, then the apps' event locks, each in key order, as steps' batches take them.
  const open = new Map(
    (
      await trx
        .selectFrom('workflow_runs')
        .select(['id', 'app_id', 'workflow_id', 'trigger', 'started_at', 'steps'])
        .where('id', 'in', [...new Set(batch.map((b) => b.runId))].sort())
        .where('status', '=', 'running')
        .orderBy('id')
        .forUpdate()
        .execute()
    ).map((r) => [r.id, r]),
  );
  const usage: UsageIncrement[] = [];
  const events = new Map<string, RunEvent[]>();
  for (const input of batch) {
    const run = open.get(input.runId);
    // Closed already (by another worker, or an earlier item of this batch): nothing more to do.
    if (!run) continue;
    open.delete(input.runId);
    const durationMs = Math.max(0, new Date(input.at).getTime() - run.started_at.getTime());
    const computeMs = (run.steps as StepRecord[]).reduce((sum, s) => sum + s.durationMs, 0);
    await trx
      .updateTable('workflow_runs')
      .set({
        status: input.status,
        output: JSON.stringify(input.output ?? null),
        error: input.error ?? null,
        finished_at: new Date(input.at),
        duration_ms: durationMs,
      })
      .where('id', '=', run.id)
      .execute();
    // With the close, so a retried activity meters nothing twice. At least a millisecond: every
    // run counts against the month, however quick its steps.
    usage.push({ appId: run.app_id, meter: 'compute.workflow', amount: Math.max(1, computeMs), at: run.started_at });
    const appEvents = events.get(run.app_id) ?? [];
    appEvents.push({
      type: 'run',
      runId: run.id,
      workflowId: run.workflow_id,
      trigger: run.trigger,
      status: input.status,
      durationMs,
      error: input.error ?? null,
    });
    events.set(run.app_id, appEvents);
  }
  await recordUsage(trx, usage);
  for (const appId of [...events.keys()].sort()) await appendRunEvents(trx, appId, events.get(appId)!);
}
