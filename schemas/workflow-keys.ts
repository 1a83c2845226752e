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
/** One workflow per accepted world generation (domain/modeling). */
export const worldGenerationWorkflowId = (generationId: string) => `world-generation:${generationId}`;
/** One assembly per media upload session (the Temporal UI shows each upload's as its own run). */
export const mediaUploadAssemblyWorkflowId = (uploadId: string) => `media-upload:${uploadId}`;
/** Holds a notify step's cooldown: while it runs, the same app and key send nothing. */
export const notifyCooldownWorkflowId = (appId: string, dedupeHash: string) => `app-notify:${appId}:${dedupeHash}`;

// What the Temporal Web UI shows of svc's runs and schedules: typed search attributes (filters such
// as `SvcRunId = 'wfr_…'`, `SvcAppSlug = 'people'`) and a memo (the run's page), so none appears
// as an opaque id. The worker registers the attributes at start (worker/search-attributes.ts);
// plain `{ name, type }` objects, Temporal's SearchAttributeKey, so workflow code can use them too.

export const SVC_SEARCH_ATTRIBUTES = {
  /** The company (its cell id, `cell-…`); also its namespace in app addresses. */
  cellId: { name: 'SvcCellId', type: 'KEYWORD' },
  /** A provisioning run's part: all, cloud-instance, folders or agent-profiles. */
  provisioningPart: { name: 'SvcProvisioningPart', type: 'KEYWORD' },
  /** What the workflow or schedule is (SvcKind). */
  kind: { name: 'SvcKind', type: 'KEYWORD' },
  /** The app's slug (with SvcCellId its address). */
  appSlug: { name: 'SvcAppSlug', type: 'KEYWORD' },
  /** The app version a run runs (known once the run has begun, for scheduled and change runs). */
  version: { name: 'SvcVersion', type: 'KEYWORD' },
  /** svc's run id (`wfr_…`) of an app workflow run. */
  runId: { name: 'SvcRunId', type: 'KEYWORD' },
} as const;

export type SvcKind =
  | 'company-initialization'
  | 'device-login'
  | 'member-invitations'
  | 'app-run'
  | 'app-change-trigger'
  | 'app-notify-cooldown'
  | 'app-schedule'
  | 'data-build'
  | 'data-sync-schedule'
  | 'platform-sync'
  | 'world-generation'
  | 'media-upload'
  | 'automation'
  | 'automation-schedule'
  | 'maintenance';

/** What svc knows of a workflow or schedule when it starts it; each label both in the memo and as its search attribute. */
export interface RunLabels {
  kind: SvcKind;
  cellId?: string | undefined;
  /** The company's name (memo only: names change, so they are not searched). */
  companyName?: string | undefined;
  appSlug?: string | undefined;
  version?: string | undefined;
  runId?: string | undefined;
  provisioningPart?: ProvisioningPart | undefined;
}

const MEMO_FIELDS = {
  kind: 'kind',
  cellId: 'company',
  companyName: 'companyName',
  appSlug: 'app',
  version: 'version',
  runId: 'runId',
  provisioningPart: 'part',
} as const;

type LabelKey = keyof typeof SVC_SEARCH_ATTRIBUTES;
export type LabelAttribute = { key: (typeof SVC_SEARCH_ATTRIBUTES)[LabelKey]; value: string };

/** The memo (`{ kind, company, companyName, app, version, runId, part }`, the labels given) and the typed search attributes of `labels`. */
export function runLabels(labels: RunLabels): { memo: Record<string, string>; typedSearchAttributes: LabelAttribute[] } {
  const memo: Record<string, string> = {};
  const typedSearchAttributes: LabelAttribute[] = [];
  for (const [field, name] of Object.entries(MEMO_FIELDS) as [keyof RunLabels, string][]) {
    const value = labels[field];
    if (value === undefined) continue;
    memo[name] = value;
    if (field in SVC_SEARCH_ATTRIBUTES) typedSearchAttributes.push({ key: SVC_SEARCH_ATTRIBUTES[field as LabelKey], value });
  }
  return { memo, typedSearchAttributes };
}

// Data pipelines: a build's run is named by the build, a sync's schedule by the sync.

/** A build's one workflow run (the API answers it on every build, to open the run in the Temporal UI). */
export const dataBuildWorkflowId = (buildId: string) => `data-build:${buildId}`;
/** A sync's Temporal Schedule; each of its runs makes a build first. */
export const dataSyncScheduleId = (syncId: string) => `data-sync-schedule:${syncId}`;
/** The platform data source's sync of a company: one run at a time (a request while it runs joins it). */
export const platformSyncWorkflowId = (companyId: string) => `platform-sync:${companyId}`;
/** A scheduled build's workflow id (Temporal suffixes the scheduled time). */
export const dataScheduledBuildWorkflowId = (syncId: string) => `data-build:schedule:${syncId}`;

// Automations: one long-running workflow each, named by the automation.

/** An automation's one workflow (the API answers it on every automation and run). */
export const automationWorkflowId = (automationId: string) => `automation:${automationId}`;
/** A schedule condition's Temporal Schedule. */
export const automationScheduleId = (automationId: string) => `automation-schedule:${automationId}`;
/** A scheduled tick's workflow id (Temporal suffixes the scheduled time): it hands the tick to the automation's workflow. */
export const automationTickWorkflowId = (automationId: string) => `automation-tick:${automationId}`;
