import type { Db, WorkflowRunStatus } from '../db/index.ts';
import { recordUsage } from '../usage/index.ts';
import { appendRunEvent, findRun, type StepRecord } from './runs.ts';

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
 * started. Idempotent: a run already closed stays as it is.
 */
export async function finishRun(db: Db, input: FinishRunInput): Promise<void> {
  const run = await findRun(db, input.runId);
  if (run?.status !== 'running') return;
  const durationMs = Math.max(0, new Date(input.at).getTime() - run.started_at.getTime());
  const computeMs = (run.steps as StepRecord[]).reduce((sum, s) => sum + s.durationMs, 0);
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('workflow_runs')
      .set({
        status: input.status,
        output: JSON.stringify(input.output ?? null),
        error: input.error ?? null,
        finished_at: new Date(input.at),
        duration_ms: durationMs,
      })
      .where('id', '=', input.runId)
      .where('status', '=', 'running')
      .returning('id')
      .executeTakeFirst();
    if (!updated) return;
    // With the close, so a retried activity meters nothing twice. At least a millisecond: every
    // run counts against the month, however quick its steps.
    await recordUsage(trx, [{ appId: run.app_id, meter: 'compute.workflow', amount: Math.max(1, computeMs), at: run.started_at }]);
    await appendRunEvent(trx, run.app_id, {
      type: 'run',
      runId: run.id,
      workflowId: run.workflow_id,
      trigger: run.trigger,
      status: input.status,
      durationMs,
      error: input.error ?? null,
    });
  });
}
