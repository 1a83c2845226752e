import { ApplicationFailure, Context } from '@temporalio/activity';
import { beginRun } from '../domain/app-workflows/begin-run.ts';
import { finishRun } from '../domain/app-workflows/finish-run.ts';
import type { ModelProvider } from '../domain/app-workflows/model-provider.ts';
import { recordSuppressed, renderNotification, sendNotifications } from '../domain/app-workflows/notify.ts';
import { isPermanent, runStep } from '../domain/app-workflows/run-step.ts';
import { channelWorkflow, triggersOf } from '../domain/apps/workflow-definition.ts';
import type { Db } from '../domain/db/database.ts';
import type { Mailer } from '../domain/mail/mailer.ts';
import { createUsageMeter } from '../domain/usage/usage-meter.ts';

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
  return {
    beginRun: (input: Parameters<typeof beginRun>[1]) => once(() => beginRun(deps.db, input)),
    runStep: (input: Parameters<typeof runStep>[1]) =>
      runStep({ db: deps.db, models: deps.models, meter, signal: Context.current().cancellationSignal }, input),
    renderNotification: (input: Parameters<typeof renderNotification>[1]) => once(() => renderNotification(deps.db, input)),
    recordSuppressed: (input: Parameters<typeof recordSuppressed>[1]) => recordSuppressed(deps.db, input),
    sendNotifications: (input: Parameters<typeof sendNotifications>[2]) => sendNotifications(deps.db, deps.mailer, input),
    finishRun: (input: Parameters<typeof finishRun>[1]) => finishRun(deps.db, input),
    /** The change trigger's cooldown in ms; null once production has no change trigger. */
    changeTriggerCooldown: async (appId: string) =>
      triggersOf((await channelWorkflow(deps.db, appId, 'production'))?.workflow).change?.cooldownMs ?? null,
  };
}
