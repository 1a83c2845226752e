import { Context } from '@temporalio/activity';
import {
  type BeginRunInput,
  beginAutomationRun,
  finishAutomationRun,
  recordFailedEffect,
  runAutomationEffect,
  triggerAutomation,
} from '../domain/automate/index.ts';
import type { Db } from '../domain/db/index.ts';
import { systemClock } from '../domain/deps.ts';
import type { Mailer } from '../domain/mail/index.ts';
import type { AutomationEffect, AutomationTick, EffectOutcome } from '../schemas/automate.ts';
import { whenRefusedForNow } from './attempts.ts';

export function createAutomateActivities(deps: { db: Db; mailer: Mailer }) {
  return {
    /** The triggers a page of the tick fires and the rest of its range (null: the automation is gone). */
    automationTriggerPage: (input: { automationId: string; tick: AutomationTick; at: string }) =>
      triggerAutomation(deps.db, input.automationId, input.tick, input.at),
    /**
     * The first page's triggers only: for runs that began before the tick was read in pages (their
     * history has no svc-automation-tick-pages marker). Goes with that patch's deprecation.
     */
    automationTriggers: async (input: { automationId: string; tick: AutomationTick; at: string }) =>
      (await triggerAutomation(deps.db, input.automationId, input.tick, input.at))?.fired ?? null,
    /** The trigger's run, once per trigger key; whether it starts effects (else why not). */
    beginAutomationRun: (input: BeginRunInput) => beginAutomationRun(deps.db, input),
    /** One effect, exactly once (its outcome recorded with what it did); transient failures thrown for the retry policy. */
    runAutomationEffect: (input: { runId: string; index: number; effect: AutomationEffect; at: string }) =>
      runAutomationEffect(
        { db: deps.db, clock: systemClock, mailer: deps.mailer },
        {
          ...input,
          attempt: Context.current().info.attempt,
          refusedForNow: whenRefusedForNow(),
        },
      ),
    recordAutomationEffect: (input: { runId: string; outcome: EffectOutcome }) => recordFailedEffect(deps.db, input.runId, input.outcome),
    finishAutomationRun: (input: { runId: string; at: string }) => finishAutomationRun(deps.db, input.runId, input.at),
  };
}
