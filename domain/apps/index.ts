// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { type AppTarget, accessToApp, accessToAppUntil, anonymousAccessToApp, callerAccess } from './access-to-app.ts';
export { type AppLabels, appLabels } from './app-labels.ts';
export { BLOB_REFERENCES } from './blob-references.ts';
export {
  assertBlobDestination,
  type BlobBackend,
  type BlobLedger,
  type BlobPage,
  type BlobStore,
  CorruptBlobError,
  cachedBlobStore,
  distinctBlobs,
  MissingBlobError,
  postgresBlobBackend,
  postgresBlobLedger,
} from './blob-store.ts';
export { validateBundleOffThread } from './bundle-validation.ts';
export { describeApp, loadAppView } from './describe-app.ts';
export { findStoredFiles } from './find-stored-files.ts';
export {
  catalogRows,
  currentVersionId,
  findChannelVersion,
  findHostedApp,
  findServedVersion,
  type HostedApp,
  type HostedFile,
  type HostedVersion,
  loadVersion,
} from './hosted-apps.ts';
export { appRows, appSummaryOf, listApps } from './list-apps.ts';
export { cardAddress, pageAddresses } from './page-addresses.ts';
export { promoteVersion } from './promote-version.ts';
export { reachApp, targetOf } from './reach-app.ts';
export { getApp } from './repository.ts';
export type { AppScheduleObserver, AppScheduleState } from './schedule-state.ts';
export { compareVersions } from './semver.ts';
export { type BlobSweepProgress, sweepUnreferencedBlobs } from './sweep-unreferenced-blobs.ts';
export { checkUpload, type UploadInput, uploadVersion } from './upload-version.ts';
export {
  appsWatching,
  appsWithProductionWorkflows,
  channelWorkflow,
  nextScheduledRun,
  type TriggerPlan,
  triggersOf,
} from './workflow-definition.ts';
