// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { buildLabels, endBuild, endJob, startBuild } from './builds.ts';
export { callWritebackWebhook } from './call-writeback-webhook.ts';
export { cancelBuild } from './cancel-build.ts';
export { createBuild } from './create-build.ts';
export { createConnection } from './create-connection.ts';
export { createSync } from './create-sync.ts';
export { deleteConnection } from './delete-connection.ts';
export { deleteSync } from './delete-sync.ts';
export { getBuild, listBuilds } from './list-builds.ts';
export { getConnection, listConnections } from './list-connections.ts';
export { getSync, listSyncs } from './list-syncs.ts';
export { checkMapping, invalidAt, liveMapping, type MappedType, mapRows } from './mapping.ts';
export {
  preparePlatformTypes,
  prunePlatformObjects,
  requestPlatformSync,
  syncPlatformPage,
} from './platform-source.ts';
export { type JobOutcome, runSyncJob } from './run-sync-job.ts';
export { recordScheduledBuild, syncSchedule } from './scheduled-build.ts';
export type { ConnectivitySettings } from './settings.ts';
export { testConnection } from './test-connection.ts';
