import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type ScheduleOptions,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import { buildLabels, syncSchedule } from '../domain/connectivity/index.ts';
import type { Db } from '../domain/db/index.ts';
import { dataBuildWorkflowId, dataScheduledBuildWorkflowId, dataSyncScheduleId, runLabels, TASK_QUEUE } from '../workflows/contract.ts';
import type { dataBuild } from '../workflows/index.ts';
import { labelSchedule, withLabels } from './schedule-labels.ts';

// Data pipelines as Temporal objects: a build's run, started from its outbox intent (its workflow
// id from the build, so a repeated delivery joins it), and a sync's schedule (cron), reconciled
// whenever the sync changes.

/** Starts the build's run, named in the Web UI by kind data-build, its company and the build id (SvcRunId). */
export async function startDataBuild(client: Client, db: Db, buildId: string, requestId: object): Promise<void> {
  const labels = await buildLabels(db, buildId);
  if (!labels) return;
  await client.workflow.start<typeof dataBuild>('dataBuild', {
    ...requestId,
    taskQueue: TASK_QUEUE,
    workflowId: dataBuildWorkflowId(buildId),
    args: [{ buildId }],
    ...runLabels({ kind: 'data-build', cellId: labels.cellId, companyName: labels.companyName, runId: buildId }),
  });
}

/** Cancels the build's run (an ended one: nothing to do). */
export async function cancelDataBuild(client: Client, db: Db, buildId: string): Promise<void> {
  const labels = await buildLabels(db, buildId);
  if (labels) await client.workflow.getHandle(labels.workflowId).cancel();
}

/** A run still going when the next is due: the next is skipped (a sync never overlaps itself). */
const CATCHUP_WINDOW_MS = 60 * 60_000;

/** The sync's Temporal Schedule follows its cron: created, updated, or deleted with the sync or its schedule. */
export async function reconcileDataSyncSchedule(
  client: Client,
  db: Db,
  syncId: string,
): Promise<'created' | 'updated' | 'deleted' | 'absent'> {
  const schedule = await syncSchedule(db, syncId);
  const handle = client.schedule.getHandle(dataSyncScheduleId(syncId));
  if (!schedule) {
    try {
      await handle.delete();
      return 'deleted';
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return 'absent';
      throw err;
    }
  }
  const labels = { cellId: schedule.cellId, companyName: schedule.companyName };
  const options: ScheduleOptions = labelSchedule(
    {
      scheduleId: dataSyncScheduleId(syncId),
      spec: { cronExpressions: [schedule.cron] },
      action: {
        type: 'startWorkflow',
        workflowType: 'dataBuild',
        args: [{ scheduledSyncId: syncId }] satisfies Parameters<typeof dataBuild>,
        taskQueue: TASK_QUEUE,
        workflowId: dataScheduledBuildWorkflowId(syncId),
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW_MS },
    },
    { kind: 'data-sync-schedule', ...labels },
    { kind: 'data-build', ...labels },
  );
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await handle.update((previous) =>
    withLabels({ ...previous, spec: options.spec, policies: { ...previous.policies, ...options.policies } }, options),
  );
  return 'updated';
}
