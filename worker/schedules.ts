import { type Client, ScheduleAlreadyRunning, type ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Db } from '../domain/db/index.ts';
import { SCHEDULE_RECONCILE, TASK_QUEUE } from '../workflows/contract.ts';
import { appLogRetentionSchedule } from './app-log-retention-schedule.ts';
import { reconcileAllAppTriggers } from './app-triggers.ts';
import { attachmentsRemovalSchedule } from './attachments-removal-schedule.ts';
import { reconcileAllAutomations } from './automations.ts';
import { blobSweepSchedule } from './blob-sweep-schedule.ts';
import { branchSweepSchedule } from './branch-sweep-schedule.ts';
import { mediaUploadPurgeSchedule } from './media-upload-purge-schedule.ts';
import { ontologyChangesRetentionSchedule } from './ontology-changes-retention-schedule.ts';
import { hasLabels, labelSchedule, withLabels } from './schedule-labels.ts';
import { monthlyUsageResetSchedule } from './usage-schedule.ts';

/** svc's schedules held against Temporal's every few minutes (a missed pass is not caught up: the next one does it). */
export const scheduleReconcileSchedule: ScheduleOptions = {
  scheduleId: SCHEDULE_RECONCILE.scheduleId,
  spec: { intervals: [{ every: SCHEDULE_RECONCILE.every }] },
  action: {
    type: 'startWorkflow',
    workflowType: 'scheduleReconciliation',
    args: [],
    taskQueue: TASK_QUEUE,
    workflowId: SCHEDULE_RECONCILE.workflowId,
  },
  policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
};

/** The product's own Temporal Schedules, each under a fixed id. */
export const PRODUCT_SCHEDULES: readonly ScheduleOptions[] = [
  appLogRetentionSchedule,
  monthlyUsageResetSchedule,
  ontologyChangesRetentionSchedule,
  branchSweepSchedule,
  mediaUploadPurgeSchedule,
  attachmentsRemovalSchedule,
  blobSweepSchedule,
  scheduleReconcileSchedule,
];

/**
 * Creates the schedule unless one with its id exists. Every worker calls this at start: the first
 * creates it, every later one (or a second worker racing it) finds it. An existing schedule is
 * left as it is (an operator may have paused it), except that one made before svc labelled its
 * schedules gets its labels. Labelled kind `maintenance`, the platform's own (no company).
 */
export async function ensureSchedule(client: Client, unlabelled: ScheduleOptions): Promise<'created' | 'existing'> {
  const options = labelSchedule(unlabelled, { kind: 'maintenance' }, { kind: 'maintenance' });
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(options.scheduleId);
  if (!hasLabels(await handle.describe(), options)) await handle.update((previous) => withLabels(previous, options));
  return 'existing';
}

export async function ensureProductSchedules(client: Client): Promise<Record<string, 'created' | 'existing'>> {
  const outcomes: Record<string, 'created' | 'existing'> = {};
  for (const options of PRODUCT_SCHEDULES) outcomes[options.scheduleId] = await ensureSchedule(client, options);
  return outcomes;
}

/**
 * One pass of agreement with Temporal, at worker start and on the reconcile schedule: product
 * schedules missing in Temporal (deleted in the Web UI) are made again, and every app's production
 * triggers and every enabled automation are reconciled (a deleted app schedule or a terminated
 * automation workflow comes back, a spec edited in the UI is set back).
 * A schedule's state is Temporal's: one paused in the UI stays paused until someone resumes it there.
 */
export async function reconcileAllSchedules(client: Client, db: Db) {
  const product = await ensureProductSchedules(client);
  const apps = await reconcileAllAppTriggers(client, db);
  const automations = await reconcileAllAutomations(client, db);
  return { product, apps, automations };
}
