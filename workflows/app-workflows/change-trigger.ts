import { condition, continueAsNew, executeChild, log, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import { type AppChangeTriggerInput, appChangeRunWorkflowId, type DataChange, dataChanged } from '../contract.ts';
import { childLabels } from './labels.ts';
import { appWorkflowRun } from './run.ts';

const { changeTriggerCooldown } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** Runs before the trigger continues as new, bounding its history. */
const RUNS_PER_HISTORY = 50;

function merge(a: DataChange | null, b: DataChange): DataChange {
  if (!a) return { objectTypes: [...new Set(b.objectTypes)].sort(), toSeq: b.toSeq };
  return { objectTypes: [...new Set([...a.objectTypes, ...b.objectTypes])].sort(), toSeq: Math.max(a.toSeq, b.toSeq) };
}

/**
 * One per app whose production workflow has `trigger.change`: the relay signals it with the data
 * layer's committed changes. A change waits out the cooldown (further changes join it), then one
 * run covers them all. Ends when production no longer has a change trigger (the reconciler also
 * terminates it); continues as new every RUNS_PER_HISTORY runs or when Temporal suggests it.
 */
export async function appChangeTrigger(input: AppChangeTriggerInput): Promise<void> {
  let pending: DataChange | null = input.pending ?? null;
  setHandler(dataChanged, (change) => {
    pending = merge(pending, change);
  });
  for (let runs = 0; ; runs++) {
    if (runs >= RUNS_PER_HISTORY || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof appChangeTrigger>({ appId: input.appId, pending });
    }
    await condition(() => pending !== null);
    const cooldownMs = await changeTriggerCooldown(input.appId);
    if (cooldownMs === null) return;
    await sleep(cooldownMs);
    const batch = pending as DataChange | null;
    pending = null;
    if (!batch) continue;
    try {
      await executeChild(appWorkflowRun, {
        workflowId: appChangeRunWorkflowId(input.appId, batch.toSeq),
        args: [{ appId: input.appId, trigger: 'change', objectTypes: batch.objectTypes }],
        ...childLabels('app-run'),
      });
    } catch (err) {
      // A failed run (recorded as such) or one that already ran under this id: the trigger lives on.
      log.warn('change-triggered run did not succeed', { appId: input.appId, toSeq: batch.toSeq, error: String(err) });
    }
  }
}
