import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import type { AutomationEffect, EffectOutcome } from '../../schemas/automate.ts';
import { childLabels } from '../app-workflows/labels.ts';
import { type AutomationInput, type AutomationTick, automationTicked, automationWorkflowId } from '../contract.ts';
import type { appWorkflowRun } from '../index.ts';

// One long-running workflow per enabled automation. The outbox relay signals it with the data
// layer's committed changes of the types it watches (signal-with-start), its Temporal Schedule
// (schedule conditions) with each firing; it handles ticks one at a time, in arrival order: the
// triggers a tick fires, each a run recorded once per trigger key (cooldown, daily cap and the
// owning app's compute quota decided there), then the run's effects in order, each an activity with
// the automation's retries. Disabling or deleting the automation terminates it (the relay).

const RETRY = { initialInterval: '1 second', maximumInterval: '1 minute' } as const;
const db = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: RETRY });

/** Ticks handled before the workflow continues as new, bounding its history. */
const TICKS_PER_HISTORY = 100;

const errorText = (err: unknown) =>
  err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause.message : String((err as Error)?.message ?? err);

async function runEffects(runId: string, appId: string, objectType: string | null, effects: AutomationEffect[], retries: number) {
  const effect = proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    retry: { ...RETRY, maximumAttempts: retries + 1 },
  });
  for (const [index, definition] of effects.entries()) {
    const at = new Date().toISOString();
    try {
      if (definition.type === 'appWorkflow') {
        // The owning app's production workflow, as a change trigger starts it (its own run checks the quota).
        await startChild<typeof appWorkflowRun>('appWorkflowRun', {
          workflowId: `app-run:${appId}:automation:${runId}:${index}`,
          args: [{ appId, trigger: 'change', ...(objectType ? { objectTypes: [objectType] } : {}) }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          ...childLabels('app-run'),
        });
      }
      await effect.runAutomationEffect({ runId, index, effect: definition, at });
    } catch (err) {
      const outcome: EffectOutcome = { index, type: definition.type, status: 'FAILED', attempts: retries + 1, error: errorText(err) };
      await db.recordAutomationEffect({ runId, outcome });
    }
  }
}

export async function automation(input: AutomationInput): Promise<void> {
  const pending: AutomationTick[] = [...(input.pending ?? [])];
  setHandler(automationTicked, (tick) => {
    pending.push(tick);
  });
  const { workflowId, runId: temporalRunId } = workflowInfo();
  // A page fires up to a thousand triggers of several activities each, more events than a history
  // holds: between two of its runs the workflow continues as new when Temporal suggests it,
  // carrying the page's triggers not yet begun, which go before any tick.
  const runTriggers = async (fired: NonNullable<AutomationInput['fired']>) => {
    for (const [i, { key, trigger }] of fired.entries()) {
      if (i > 0 && patched('svc-automation-page-bound') && workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof automation>({ automationId: input.automationId, pending, fired: fired.slice(i) });
      }
      const at = new Date().toISOString();
      const begun = await db.beginAutomationRun({ automationId: input.automationId, key, trigger, at, workflowId, temporalRunId });
      if (!begun.start) continue;
      await runEffects(begun.runId, begun.appId, begun.objectType, begun.effects, begun.retries);
      await db.finishAutomationRun({ runId: begun.runId, at: new Date().toISOString() });
    }
  };
  await runTriggers(input.fired ?? []);
  for (let ticks = 0; ; ticks++) {
    if (ticks >= TICKS_PER_HISTORY || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof automation>({ automationId: input.automationId, pending });
    }
    await condition(() => pending.length > 0);
    const tick = pending.shift()!;
    const read = { automationId: input.automationId, tick, at: new Date().toISOString() };
    // A tick's range is read a page of changes at a time (a sync commits thousands in one); the
    // rest goes first in the queue, so ticks stay in order and each page counts toward the history bound.
    const page = patched('svc-automation-tick-pages')
      ? await db.automationTriggerPage(read)
      : await db.automationTriggers(read).then((fired) => fired && { fired, rest: null });
    if (page === null) return;
    if (page.rest) pending.unshift(page.rest);
    await runTriggers(page.fired);
  }
}

/** Started by a schedule condition's Temporal Schedule: hands the firing to the automation's workflow. */
export async function automationTick(input: { automationId: string }): Promise<void> {
  const at = new Date().toISOString();
  await getExternalWorkflowHandle(automationWorkflowId(input.automationId)).signal(automationTicked, { kind: 'schedule', at });
}
