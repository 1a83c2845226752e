// Every workflow the worker runs. Workflow code imports activity types only.

export { appLogRetention } from './app-log/retention.ts';
export { appChangeTrigger } from './app-workflows/change-trigger.ts';
export { appWorkflowRun, notifyCooldown } from './app-workflows/run.ts';
export { blobSweep } from './apps/blob-sweep.ts';
export { attachmentsRemoval } from './attachments/removal.ts';
export { automation, automationTick } from './automate/automation.ts';
export { dataBuild } from './connectivity/data-build.ts';
export { platformDataSync } from './connectivity/platform-sync.ts';
export { deviceLoginExpiry } from './device-login/expiry.ts';
export { mediaUploadAssembly } from './media/upload-assembly.ts';
export { mediaUploadPurge } from './media/upload-purge.ts';
export { memberInvitations } from './members/invitations.ts';
export { worldGeneration } from './modeling/generation.ts';
export { ontologyBranchSweep } from './ontology/branch-sweep.ts';
export { ontologyChangesRetention } from './ontology/changes-retention.ts';
export { companyInitialization } from './provisioning/company-initialization.ts';
export { scheduleReconciliation } from './schedules/reconcile.ts';
export { monthlyUsageReset } from './usage/monthly-reset.ts';
