// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { awaitInstanceRunning } from './await-instance-running.ts';
export { awaitRunStart } from './await-run-start.ts';
export { beginRun } from './begin-run.ts';
export { CELL_TAG, type CloudProvider, type InstanceMetadata, type InstanceRequest } from './cloud-provider.ts';
export { type CompanyRootPolicy, isInside, SYSTEM_DIRECTORIES } from './company-root.ts';
export { createFolders } from './create-folders.ts';
export { ensureCloudInstance } from './ensure-cloud-instance.ts';
export { finishRun } from './finish-run.ts';
export { getProvisioningStatus } from './get-provisioning-status.ts';
export { initializeCompany } from './initialize-company.ts';
export { listProvisionedCompanies } from './list-companies.ts';
export type { LiveRun, LiveRunObserver } from './live-runs.ts';
export { applyPendingMove } from './move-company-tree.ts';
export { recordRunStart } from './record-run-start.ts';
export { replaceCloudInstance } from './replace-cloud-instance.ts';
export { type QueuedRun, requestProvisioning } from './request-provisioning.ts';
export type { RunContext } from './run-step.ts';
export { writeAgentProfiles } from './write-agent-profiles.ts';
