// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { appOfCaller } from './app-of-caller.ts';
export { beginRun } from './begin-run.ts';
export { beginRunWithSteps } from './begin-run-with-steps.ts';
export { checkWorkflow } from './check-workflow.ts';
export { awaitRunResult, executeWorkflowApi, executeWorkflowApiNow } from './execute-workflow-api.ts';
export { exportQuery } from './export-query.ts';
export { finishRun } from './finish-run.ts';
export { listCapabilities } from './list-capabilities.ts';
export { lastRunEventSeq, listRunEvents } from './list-run-events.ts';
export { listRuns } from './list-runs.ts';
export { WORKFLOW_API_NAME, workflowApisOf } from './list-workflow-apis.ts';
export { localModelProvider, type ModelProvider } from './model-provider.ts';
export { deliverPending, recordSuppressed, renderNotification, sendNotifications } from './notify.ts';
export { companyRecipients } from './recipients.ts';
export { isPermanent, runStep } from './run-step.ts';
export { runSteps } from './run-steps.ts';
export type { StepRecord } from './runs.ts';
export { recordTestNotification, testNotificationOutcome } from './send-test-notification.ts';
