// Temporal business keys and the provisioning parts catalog: pure definitions shared by the
// domain (which answers them and starts runs by them), the Temporal adapter and workflow code (which
// runs in the deterministic sandbox, so this file imports nothing).

/** What one provisioning run does: everything, or one part. */
export type ProvisioningPart = 'all' | 'cloud-instance' | 'folders' | 'agent-profiles';

/** The parts one run can do, in the order a full run does them. */
export const PARTS = ['cloud-instance', 'folders', 'agent-profiles'] as const;
export type Part = (typeof PARTS)[number];
export const partsOf = (part: ProvisioningPart): readonly Part[] => (part === 'all' ? PARTS : [part]);

/** `company-init:<cellId>` for a full run, `company-init:<cellId>:<part>` for a run of one part; operators find runs by it in the Temporal UI. */
export function provisioningWorkflowId(cellId: string, part: ProvisioningPart): string {
  return part === 'all' ? `company-init:${cellId}` : `company-init:${cellId}:${part}`;
}

// App workflows: ids derived from the app (and the run), so reconciling, relaying and replaying are idempotent.

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
