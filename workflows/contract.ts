import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { AutomationTick, AutomationTrigger } from '../schemas/automate.ts';
import type { ProvisioningPart } from '../schemas/workflow-keys.ts';

// The workflows' own contract: task queue, workflow ids, signals, queries, inputs. Workflow code,
// the worker and the activities import it; it runs in the sandbox, so it imports only
// @temporalio/workflow and the pure keys in schemas/workflow-keys.ts.

export const TASK_QUEUE = 'svc-main';

/** Business-keyed ids: one workflow per device login. */
export const deviceLoginWorkflowId = (deviceLoginId: string) => `device-login:${deviceLoginId}`;

/** One workflow per queued batch of invitation emails (the outbox key). */
export const memberInvitationsWorkflowId = (key: string) => `member-invitations:${key}`;

export interface MemberInvitationsInput {
  companyId: string;
  accountIds: string[];
  /** Where the links point ({base_url}), as the API that queued them knew it. */
  baseUrl: string;
}

export type DeviceLoginClosedReason = 'denied' | 'redeemed';
/** The device login ended before its expiry; nothing is left for the timer to do. */
export const deviceLoginClosed = defineSignal<[DeviceLoginClosedReason]>('deviceLoginClosed');

export interface DeviceLoginExpiryInput {
  deviceLoginId: string;
  /** ISO time after which an undecided or unredeemed login is expired. */
  expiresAt: string;
}

/** Provisioning parts and the business keys of every workflow (pure definitions in schemas/). */
export {
  appApiRunWorkflowId,
  appChangeRunWorkflowId,
  appChangeTriggerWorkflowId,
  appScheduledRunWorkflowId,
  appScheduleId,
  automationScheduleId,
  automationTickWorkflowId,
  automationWorkflowId,
  dataBuildWorkflowId,
  dataScheduledBuildWorkflowId,
  dataSyncScheduleId,
  mediaUploadAssemblyWorkflowId,
  notifyCooldownWorkflowId,
  type Part,
  partsOf,
  platformSyncWorkflowId,
  provisioningWorkflowId,
  type RunLabels,
  runLabels,
  SVC_SEARCH_ATTRIBUTES,
  type SvcKind,
  worldGenerationWorkflowId,
} from '../schemas/workflow-keys.ts';

/** A build asked for through the API (its record exists), or a sync's scheduled run (which records its build first). */
export type DataBuildInput = { buildId: string } | { scheduledSyncId: string };

/** The company whose platform data the platform data source syncs. */
export interface PlatformSyncInput {
  companyId: string;
}

export interface CompanyInitializationInput {
  cellId: string;
  part: ProvisioningPart;
}

export interface ProvisioningProgress {
  part: ProvisioningPart;
  /** The step running now (null before the first and after the last). */
  currentStep: string | null;
  completedSteps: string[];
  failedStep: string | null;
}

/** What a provisioning run is doing now; the status endpoint asks it while the run goes. */
export const provisioningProgressQuery = defineQuery<ProvisioningProgress>('provisioningProgress');

/** The app log's retention: one schedule (fixed id, created idempotently at worker start). */
export const APP_LOG_RETENTION = {
  scheduleId: 'app-log-retention',
  workflowId: 'app-log-retention',
  /** Rows deleted per activity call: short transactions, so purging never holds ingestion. */
  batchSize: 5000,
  /** Batches per run; a backlog beyond that continues the next day. */
  maxBatches: 200,
} as const;
/** The one Temporal Schedule of the monthly quota reset (created at worker start, idempotently). */
export const MONTHLY_USAGE_RESET_SCHEDULE_ID = 'usage-monthly-reset';
/** The reset's runs: `usage-monthly-reset-<scheduled time>`, as Temporal suffixes a schedule's workflow id. */
export const MONTHLY_USAGE_RESET_WORKFLOW_ID = 'usage-monthly-reset';

/** Retention of ontology changes (the subscriptions' resume window): an hourly schedule (fixed id, created idempotently at worker start). */
export const ONTOLOGY_CHANGES_RETENTION = {
  scheduleId: 'ontology-changes-retention',
  workflowId: 'ontology-changes-retention',
  /** Changes are kept this long; a subscription resuming from an older one reloads its set. */
  keepHours: 24,
  batchSize: 5000,
  maxBatches: 200,
} as const;

/**
 * Removal of unused attachments (no object holds them an hour after their upload): a schedule
 * every 10 minutes (fixed id), so one is gone at most 70 minutes after its upload.
 */
export const ATTACHMENTS_REMOVAL = {
  scheduleId: 'attachments-removal',
  workflowId: 'attachments-removal',
  every: '10 minutes',
  batchSize: 500,
  maxBatches: 200,
} as const;

/** The daily sweep of definition branches (INACTIVE after 35 idle days, deleted 7 days later): one schedule, fixed id. */
export const BRANCH_SWEEP = { scheduleId: 'ontology-branch-sweep', workflowId: 'ontology-branch-sweep' } as const;

/** The hourly purge of abandoned media upload sessions (MEDIA_LIMITS.abandonedUploadHours idle): one schedule, fixed id. */
export const MEDIA_UPLOAD_PURGE = {
  scheduleId: 'media-upload-purge',
  workflowId: 'media-upload-purge',
  batchSize: 500,
  /** Batches per run; a backlog beyond that continues the next hour. */
  maxBatches: 100,
} as const;

/**
 * The sweep of blobs nothing names (SVC_BLOB_SWEEP_GRACE_HOURS after their last write): a schedule
 * every 6 hours (fixed id). One activity walks the store in pages of `batchSize` keys.
 */
export const BLOB_SWEEP = {
  scheduleId: 'blob-sweep',
  workflowId: 'blob-sweep',
  every: '6 hours',
  batchSize: 500,
} as const;

export interface BlobSweepInput {
  /** Counts what would be deleted and deletes nothing (start the workflow by hand with it). */
  dryRun?: boolean;
}

export interface MediaUploadAssemblyInput {
  uploadId: string;
}

/**
 * svc's schedules held against Temporal's every few minutes (one schedule, fixed id): a schedule
 * deleted in the Web UI comes back within that time, not only at the next worker start.
 */
export const SCHEDULE_RECONCILE = {
  scheduleId: 'svc-schedule-reconcile',
  workflowId: 'svc-schedule-reconcile',
  every: '5 minutes',
} as const;

export interface AppWorkflowRunInput {
  appId: string;
  trigger: 'schedule' | 'change' | 'api';
  /** An API run's record (made by execute). */
  runId?: string;
  objectTypes?: string[];
}

export interface DataChange {
  objectTypes: string[];
  toSeq: number;
}
/** The data layer committed changes to object types the app's change trigger watches. */
export const dataChanged = defineSignal<[DataChange]>('dataChanged');

export interface AppChangeTriggerInput {
  appId: string;
  /** Changes received but not yet run when the trigger continued as new. */
  pending?: DataChange | null;
}

export const automationTicked = defineSignal<[AutomationTick]>('automationTicked');

export interface AutomationInput {
  automationId: string;
  /** Ticks not yet handled when the workflow continued as new. */
  pending?: AutomationTick[];
  /** Triggers of a page read but not yet begun when the workflow continued as new in the middle of it. */
  fired?: { key: string; trigger: AutomationTrigger }[];
}
export type { AutomationTick };
