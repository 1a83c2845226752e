import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type ScheduleOptions,
  ScheduleOverlapPolicy,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { automationsWatching, automationTemporal, enabledAutomationIds } from '../domain/automate/index.ts';
import type { Db } from '../domain/db/index.ts';
import {
  type AutomationTick,
  automationScheduleId,
  automationTicked,
  automationTickWorkflowId,
  automationWorkflowId,
  runLabels,
  TASK_QUEUE,
} from '../workflows/contract.ts';
import type { automation, automationTick } from '../workflows/index.ts';
import { labelSchedule, withLabels } from './schedule-labels.ts';

// Automations as Temporal objects: each enabled one a long-running workflow (kind automation,
// SvcRunId its id), a schedule condition also a Temporal Schedule whose firings are handed to it.
// Reconciled from the outbox intent `automation.changed`; each step idempotent.

type Labels = NonNullable<Awaited<ReturnType<typeof automationTemporal>>>['labels'];

const startOptions = (automationId: string, labels: Labels) => ({
  taskQueue: TASK_QUEUE,
  workflowId: automationWorkflowId(automationId),
  args: [{ automationId }] satisfies Parameters<typeof automation>,
  ...runLabels({ kind: 'automation', ...labels }),
});

async function endWorkflow(client: Client, automationId: string, reason: string): Promise<void> {
  try {
    await client.workflow.getHandle(automationWorkflowId(automationId)).terminate(reason);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

async function deleteSchedule(client: Client, automationId: string): Promise<void> {
  try {
    await client.schedule.getHandle(automationScheduleId(automationId)).delete();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
  }
}

/** The workflow runs while the automation is enabled; its schedule exists while it is enabled with a schedule condition. */
export async function reconcileAutomation(client: Client, db: Db, automationId: string): Promise<void> {
  const state = await automationTemporal(db, automationId);
  if (!state?.enabled) {
    await deleteSchedule(client, automationId);
    await endWorkflow(client, automationId, state ? 'automation disabled' : 'automation deleted');
    return;
  }
  try {
    await client.workflow.start<typeof automation>('automation', startOptions(automationId, state.labels));
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  if (!state.cron) {
    await deleteSchedule(client, automationId);
    return;
  }
  const options: ScheduleOptions = labelSchedule(
    {
      scheduleId: automationScheduleId(automationId),
      spec: { cronExpressions: [state.cron] },
      action: {
        type: 'startWorkflow',
        workflowType: 'automationTick',
        args: [{ automationId }] satisfies Parameters<typeof automationTick>,
        taskQueue: TASK_QUEUE,
        workflowId: automationTickWorkflowId(automationId),
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    },
    { kind: 'automation-schedule', ...state.labels },
    { kind: 'automation', ...state.labels },
  );
  try {
    await client.schedule.create(options);
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule
      .getHandle(automationScheduleId(automationId))
      .update((previous) => withLabels({ ...previous, spec: options.spec }, options));
  }
}

/** The data layer's committed changes: a tick to each enabled automation watching one of the types (started if need be). */
export async function signalAutomations(
  client: Client,
  db: Db,
  change: { companyId: string; objectTypes: string[]; fromSeq: number; toSeq: number },
): Promise<string[]> {
  const ids = await automationsWatching(db, change.companyId, change.objectTypes);
  for (const automationId of ids) {
    const state = await automationTemporal(db, automationId);
    if (!state) continue;
    await client.workflow.signalWithStart<typeof automation, [AutomationTick]>('automation', {
      ...startOptions(automationId, state.labels),
      signal: automationTicked,
      signalArgs: [{ kind: 'change', fromSeq: change.fromSeq, toSeq: change.toSeq }],
    });
  }
  return ids;
}

/**
 * Every enabled automation reconciled (at worker start and on the reconcile schedule): a workflow
 * or schedule terminated or deleted in Temporal (the Web UI, a new cluster) comes back. One that
 * fails is named and the others go on.
 */
export async function reconcileAllAutomations(client: Client, db: Db): Promise<{ automations: number; failed: Record<string, string> }> {
  const ids = await enabledAutomationIds(db);
  const failed: Record<string, string> = {};
  for (const id of ids) {
    await reconcileAutomation(client, db, id).catch((err: unknown) => {
      failed[id] = err instanceof Error ? err.message : String(err);
    });
  }
  return { automations: ids.length, failed };
}
