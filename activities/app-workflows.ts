import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  beginRun,
  beginRunWithSteps,
  finishRun,
  isPermanent,
  type ModelProvider,
  recordSuppressed,
  renderNotification,
  runStep,
  runSteps,
  sendNotifications,
} from '../domain/app-workflows/index.ts';
import { channelWorkflow, triggersOf } from '../domain/apps/index.ts';
import type { Db } from '../domain/db/index.ts';
import type { Mailer } from '../domain/mail/index.ts';
import { createUsageMeter } from '../domain/usage/index.ts';
import { whenRefusedForNow } from './attempts.ts';
import { heartbeating } from './heartbeat.ts';

export interface AppWorkflowActivityDeps {
  db: Db;
  /** notify emails: SMTP, or recorded only when none is configured. */
  mailer: Mailer;
  /** The model step's provider (the deterministic local one by default). */
  models: ModelProvider;
}

/** A failure no retry mends fails the step at once instead of being retried. */
async function once<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isPermanent(err)) throw ApplicationFailure.nonRetryable((err as Error).message, 'StepFailed');
    throw err;
  }
}

export function createAppWorkflowActivities(deps: AppWorkflowActivityDeps) {
  const meter = createUsageMeter(deps.db);
  const stepDeps = () => ({ db: deps.db, models: deps.models, meter, signal: Context.current().cancellationSignal });
  return {
    beginRun: (input: Parameters<typeof beginRun>[1]) => heartbeating(() => once(() => beginRun(deps.db, input))),
    beginRunWithSteps: (input: Parameters<typeof beginRunWithSteps>[1]) =>
      heartbeating(() => once(() => beginRunWithSteps(stepDeps(), input))),
    runStep: (input: Parameters<typeof runStep>[1]) => heartbeating(() => runStep(stepDeps(), input)),
    runSteps: (input: Parameters<typeof runSteps>[1]) => heartbeating(() => runSteps(stepDeps(), input)),
    renderNotification: (input: Parameters<typeof renderNotification>[1]) =>
      heartbeating(() => once(() => renderNotification(deps.db, input))),
    recordSuppressed: (input: Parameters<typeof recordSuppressed>[1]) => heartbeating(() => recordSuppressed(deps.db, input)),
    sendNotifications: (input: Parameters<typeof sendNotifications>[2]) =>
      heartbeating(() => sendNotifications(deps.db, deps.mailer, input, whenRefusedForNow())),
    finishRun: (input: Parameters<typeof finishRun>[1]) => heartbeating(() => finishRun(deps.db, input)),
    /** The change trigger's cooldown in ms; null once production has no change trigger. */
    changeTriggerCooldown: async (appId: string) =>
      triggersOf((await channelWorkflow(deps.db, appId, 'production'))?.workflow).change?.cooldownMs ?? null,
  };
}
