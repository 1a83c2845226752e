// Temporal ids of app workflows, derived from the app (and the run), so reconciling, relaying
// and replaying are idempotent. Pure: worker/shared.ts re-exports them for workflow code.

export const appScheduleId = (appId: string) => `app-schedule:${appId}`;
/** A scheduled run's workflow id (Temporal suffixes the scheduled time). */
export const appScheduledRunWorkflowId = (appId: string) => `app-run:${appId}:schedule`;
/** The one long-running change trigger of an app. */
export const appChangeTriggerWorkflowId = (appId: string) => `app-trigger:${appId}`;
/** A change-triggered run, by the last change sequence it covers. */
export const appChangeRunWorkflowId = (appId: string, toSeq: number) => `app-run:${appId}:change:${toSeq}`;
/** A run started by execute (`POST .../apis/run/execute`), by its run record. */
export const appApiRunWorkflowId = (runId: string) => `app-run:${runId}`;
/** Holds a notify step's cooldown: while it runs, the same app and key send nothing. */
export const notifyCooldownWorkflowId = (appId: string, dedupeHash: string) => `app-notify:${appId}:${dedupeHash}`;
