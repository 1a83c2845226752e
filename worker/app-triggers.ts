import {
  type Client,
  ScheduleAlreadyRunning,
  type ScheduleDescription,
  ScheduleNotFoundError,
  type ScheduleOptions,
  ScheduleOverlapPolicy,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import {
  type AppLabels,
  appLabels,
  appsWatching,
  appsWithProductionWorkflows,
  channelWorkflow,
  type TriggerPlan,
  triggersOf,
} from '../domain/apps/index.ts';
import type { Db } from '../domain/db/index.ts';
import {
  appChangeTriggerWorkflowId,
  appScheduledRunWorkflowId,
  appScheduleId,
  type DataChange,
  dataChanged,
  runLabels,
  TASK_QUEUE,
} from '../workflows/contract.ts';
import type { appChangeTrigger, appWorkflowRun } from '../workflows/index.ts';
import { hasLabels, labelSchedule, withLabels } from './schedule-labels.ts';

// An app's production workflow as Temporal objects: `trigger.schedule` a Schedule, `trigger.change`
// the long-running change trigger. Reconciled after every production change (publish, rollback:
// the outbox intent `app-workflows.changed`) and at worker start; each step is idempotent.

/** A run still going when the next is due may start up to this late (ms). */
const CATCHUP_WINDOW_MS = 60 * 60_000;

/** The schedule's interval in milliseconds, counted from the Unix epoch: `every: 1d, at: 09:30` is 09:30 UTC each day. */
function intervalOf(schedule: NonNullable<TriggerPlan['schedule']>) {
  return { every: schedule.everySeconds * 1000, offset: schedule.at ? (schedule.at.hour * 60 + schedule.at.minute) * 60_000 : 0 };
}

/** The app's schedule; `labels` name it (kind app-schedule) and its runs (kind app-run) in the Web UI. */
export function appScheduleOptions(appId: string, schedule: NonNullable<TriggerPlan['schedule']>, labels?: AppLabels): ScheduleOptions {
  const { every, offset } = intervalOf(schedule);
  return labelSchedule(
    {
      scheduleId: appScheduleId(appId),
      spec: { intervals: [{ every, ...(offset ? { offset } : {}) }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'appWorkflowRun',
        args: [{ appId, trigger: 'schedule' }] satisfies Parameters<typeof appWorkflowRun>,
        taskQueue: TASK_QUEUE,
        workflowId: appScheduledRunWorkflowId(appId),
      },
      // A run still going when the next is due: the next is skipped, never stacked.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW_MS },
    },
    { kind: 'app-schedule', ...labels },
    { kind: 'app-run', ...labels },
  );
}

/**
 * Whether Temporal's schedule already times its runs as the manifest says (then the reconciler,
 * which runs every few minutes, writes nothing). Anything edited in the Web UI (another interval,
 * calendars, skips, start or end, jitter, overlap, catch-up) is not.
 */
function specMatches({ spec, policies }: ScheduleDescription, schedule: NonNullable<TriggerPlan['schedule']>): boolean {
  const wanted = intervalOf(schedule);
  const [interval, ...more] = spec.intervals ?? [];
  return (
    interval !== undefined &&
    more.length === 0 &&
    interval.every === wanted.every &&
    (interval.offset ?? 0) === wanted.offset &&
    !spec.calendars?.length &&
    !spec.skip?.length &&
    !spec.startAt &&
    !spec.endAt &&
    !spec.jitter &&
    policies.overlap === ScheduleOverlapPolicy.SKIP &&
    policies.catchupWindow === CATCHUP_WINDOW_MS
  );
}

export interface Reconciled {
  schedule: 'created' | 'updated' | 'unchanged' | 'deleted' | 'absent';
  changeTrigger: 'started' | 'running' | 'ended' | 'absent';
}

export async function reconcileAppTriggers(client: Client, db: Db, appId: string): Promise<Reconciled> {
  const plan = triggersOf((await channelWorkflow(db, appId, 'production'))?.workflow);
  const labels = await appLabels(db, appId);
  return {
    schedule: await reconcileSchedule(client, appId, plan, labels),
    changeTrigger: await reconcileChangeTrigger(client, appId, plan, labels),
  };
}

async function reconcileSchedule(
  client: Client,
  appId: string,
  plan: TriggerPlan,
  labels: AppLabels | undefined,
): Promise<Reconciled['schedule']> {
  const handle = client.schedule.getHandle(appScheduleId(appId));
  if (!plan.schedule) {
    try {
      await handle.delete();
      return 'deleted';
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return 'absent';
      throw err;
    }
  }
  const options = appScheduleOptions(appId, plan.schedule, labels);
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const description = await handle.describe();
  if (specMatches(description, plan.schedule) && hasLabels(description, options)) return 'unchanged';
  // Its state (paused, with its note) and action are kept: pausing is decided in Temporal. The
  // labels follow production (its version) and the app.
  await handle.update((previous) =>
    withLabels({ ...previous, spec: options.spec, policies: { ...previous.policies, ...options.policies } }, options),
  );
  return 'updated';
}

/** The change trigger's start options: one long-running workflow per app, named in the Web UI (kind app-change-trigger). */
function changeTriggerStart(appId: string, labels: AppLabels | undefined) {
  const { version: _version, ...app } = labels ?? {};
  return {
    taskQueue: TASK_QUEUE,
    workflowId: appChangeTriggerWorkflowId(appId),
    args: [{ appId }] satisfies Parameters<typeof appChangeTrigger>,
    ...runLabels({ kind: 'app-change-trigger', ...app }),
  };
}

async function reconcileChangeTrigger(
  client: Client,
  appId: string,
  plan: TriggerPlan,
  labels: AppLabels | undefined,
): Promise<Reconciled['changeTrigger']> {
  const workflowId = appChangeTriggerWorkflowId(appId);
  if (!plan.change) {
    try {
      await client.workflow.getHandle(workflowId).terminate('production has no change trigger any more');
      return 'ended';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'absent';
      throw err;
    }
  }
  try {
    await client.workflow.start<typeof appChangeTrigger>('appChangeTrigger', changeTriggerStart(appId, labels));
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'running';
    throw err;
  }
}

/**
 * Worker start: every app with a production workflow (idempotent; a missed intent is caught up).
 * One app's failure is reported and does not keep the worker from starting; its next publish or
 * the next start reconciles it again.
 */
export async function reconcileAllAppTriggers(client: Client, db: Db): Promise<{ apps: number; failed: Record<string, string> }> {
  const apps = await appsWithProductionWorkflows(db);
  const failed: Record<string, string> = {};
  for (const appId of apps) {
    await reconcileAppTriggers(client, db, appId).catch((err: unknown) => {
      failed[appId] = err instanceof Error ? err.message : String(err);
    });
  }
  return { apps: apps.length, failed };
}

/** The data layer's committed changes: a signal to each watching app's change trigger (started if need be). */
export async function signalChangeTriggers(client: Client, db: Db, change: { companyId: string; objectTypes: string[]; toSeq: number }) {
  const apps = await appsWatching(db, change.companyId, change.objectTypes);
  for (const appId of apps) {
    await client.workflow.signalWithStart<typeof appChangeTrigger, [DataChange]>('appChangeTrigger', {
      ...changeTriggerStart(appId, await appLabels(db, appId)),
      signal: dataChanged,
      signalArgs: [{ objectTypes: change.objectTypes, toSeq: change.toSeq }],
    });
  }
  return apps;
}
