import type { ModelProvider } from '../domain/app-workflows/index.ts';
import type { BlobStore } from '../domain/apps/index.ts';
import type { ConnectivitySettings } from '../domain/connectivity/index.ts';
import type { Db } from '../domain/db/index.ts';
import type { Mailer } from '../domain/mail/index.ts';
import type { UploadHashes } from '../domain/media/index.ts';
import type { CloudProvider, CompanyRootPolicy } from '../domain/provisioning/index.ts';
import { createAppLogActivities } from './app-log.ts';
import { createAppWorkflowActivities } from './app-workflows.ts';
import { createAttachmentActivities } from './attachments.ts';
import { createAutomateActivities } from './automate.ts';
import { createBlobActivities } from './blobs.ts';
import { createConnectivityActivities } from './connectivity.ts';
import { createDeviceLoginActivities } from './device-login.ts';
import { createMediaActivities } from './media.ts';
import { createMemberActivities } from './members.ts';
import { createModelingActivities } from './modeling.ts';
import { createOntologyActivities } from './ontology.ts';
import { createProvisioningActivities } from './provisioning.ts';
import { createScheduleActivities } from './schedules.ts';
import { createUsageActivities } from './usage.ts';

export interface ActivityDeps {
  db: Db;
  /** Where company initialization creates or finds server instances (aws or local). */
  cloud: CloudProvider;
  /** Where company roots may be (SVC_COMPANY_ROOT) and where never: checked again by each file step. */
  companyRoot: CompanyRootPolicy;
  /** App workflows' notify emails and member invitations. */
  mailer: Mailer;
  /** App workflows' model steps. */
  models: ModelProvider;
  /** Data syncs: the key that opens connection secrets, where sources may be. */
  connectivity: ConnectivitySettings;
  /** World generations read their parts from, and store their scenes in, the blob store; media uploads are assembled there. */
  blobs: BlobStore;
  /** The API's running hashes of upload sessions where it runs in this process (role all): see DomainDeps. */
  uploadHashes?: UploadHashes;
  /** The blob sweep's grace period (SVC_BLOB_SWEEP_GRACE_HOURS). */
  blobSweepGraceMs: number;
}

/** All activities, built from their dependencies (the worker passes the real ones). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createDeviceLoginActivities(deps),
    ...createProvisioningActivities(deps),
    ...createAppLogActivities(deps),
    ...createUsageActivities(deps),
    ...createOntologyActivities(deps),
    ...createAppWorkflowActivities(deps),
    ...createMemberActivities(deps),
    ...createScheduleActivities(deps),
    ...createConnectivityActivities(deps),
    ...createModelingActivities(deps),
    ...createMediaActivities(deps),
    ...createAttachmentActivities(deps),
    ...createBlobActivities(deps),
    ...createAutomateActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
