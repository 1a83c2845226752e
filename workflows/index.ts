// Every workflow the worker runs. Workflow code imports activity types only.

export { appChangeTrigger } from './app-change-trigger.ts';
export { appLogRetention } from './app-log-retention.ts';
export { appWorkflowRun, notifyCooldown } from './app-workflow-run.ts';
export { companyInitialization } from './company-initialization.ts';
export { deviceLoginExpiry } from './device-login-expiry.ts';
export { memberInvitations } from './member-invitations.ts';
export { monthlyUsageReset } from './monthly-usage-reset.ts';
export { ontologyBranchSweep } from './ontology-branch-sweep.ts';
export { ontologyChangesRetention } from './ontology-changes-retention.ts';
