// The proto enum values the server uses, read from the shipped descriptors so they can't drift.
import { enumValues } from './proto.ts';

const E = 'temporal.api.enums.v1.';

export const Status = enumValues(E + 'WorkflowExecutionStatus', 'WORKFLOW_EXECUTION_STATUS_', [
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
] as const);
export const TimeoutType = enumValues(E + 'TimeoutType', 'TIMEOUT_TYPE_', [
  'START_TO_CLOSE',
  'SCHEDULE_TO_START',
  'SCHEDULE_TO_CLOSE',
  'HEARTBEAT',
] as const);
export const RetryState = enumValues(E + 'RetryState', 'RETRY_STATE_', [
  'IN_PROGRESS',
  'NON_RETRYABLE_FAILURE',
  'TIMEOUT',
  'MAXIMUM_ATTEMPTS_REACHED',
  'RETRY_POLICY_NOT_SET',
  'CANCEL_REQUESTED',
] as const);
export const IdReusePolicy = enumValues(E + 'WorkflowIdReusePolicy', 'WORKFLOW_ID_REUSE_POLICY_', [
  'UNSPECIFIED',
  'ALLOW_DUPLICATE',
  'ALLOW_DUPLICATE_FAILED_ONLY',
  'REJECT_DUPLICATE',
  'TERMINATE_IF_RUNNING',
] as const);
export const IdConflictPolicy = enumValues(E + 'WorkflowIdConflictPolicy', 'WORKFLOW_ID_CONFLICT_POLICY_', [
  'UNSPECIFIED',
  'FAIL',
  'USE_EXISTING',
  'TERMINATE_EXISTING',
] as const);
export const TaskQueueKind = enumValues(E + 'TaskQueueKind', 'TASK_QUEUE_KIND_', ['NORMAL', 'STICKY'] as const);
export const TaskQueueType = enumValues(E + 'TaskQueueType', 'TASK_QUEUE_TYPE_', ['WORKFLOW', 'ACTIVITY'] as const);
export const HistoryFilter = enumValues(E + 'HistoryEventFilterType', 'HISTORY_EVENT_FILTER_TYPE_', ['CLOSE_EVENT'] as const);
export const QueryResultType = enumValues(E + 'QueryResultType', 'QUERY_RESULT_TYPE_', ['ANSWERED', 'FAILED'] as const);
export const QueryRejectCondition = enumValues(E + 'QueryRejectCondition', 'QUERY_REJECT_CONDITION_', [
  'NOT_OPEN',
  'NOT_COMPLETED_CLEANLY',
] as const);
export const WorkflowTaskFailedCause = enumValues(E + 'WorkflowTaskFailedCause', 'WORKFLOW_TASK_FAILED_CAUSE_', [
  'UNHANDLED_COMMAND',
  'RESET_STICKY_TASK_QUEUE',
  'BAD_SCHEDULE_ACTIVITY_ATTRIBUTES',
  'BAD_START_TIMER_ATTRIBUTES',
  'SCHEDULE_ACTIVITY_DUPLICATE_ID',
  'START_TIMER_DUPLICATE_ID',
  'UNHANDLED_UPDATE',
  'BAD_START_CHILD_EXECUTION_ATTRIBUTES',
  'BAD_RECORD_MARKER_ATTRIBUTES',
  'BAD_FAIL_WORKFLOW_EXECUTION_ATTRIBUTES',
  'BAD_CONTINUE_AS_NEW_ATTRIBUTES',
  'BAD_SIGNAL_WORKFLOW_EXECUTION_ATTRIBUTES',
  'BAD_SEARCH_ATTRIBUTES',
  'BAD_MODIFY_WORKFLOW_PROPERTIES_ATTRIBUTES',
  'BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE',
  'RESET_WORKFLOW',
] as const);
export const ResetReapplyType = enumValues(E + 'ResetReapplyType', 'RESET_REAPPLY_TYPE_', ['SIGNAL', 'NONE', 'ALL_ELIGIBLE'] as const);
export const ResetReapplyExcludeType = enumValues(E + 'ResetReapplyExcludeType', 'RESET_REAPPLY_EXCLUDE_TYPE_', [
  'SIGNAL',
  'UPDATE',
] as const);
export const ParentClosePolicy = enumValues(E + 'ParentClosePolicy', 'PARENT_CLOSE_POLICY_', [
  'TERMINATE',
  'ABANDON',
  'REQUEST_CANCEL',
] as const);
export const StartChildFailedCause = enumValues(
  E + 'StartChildWorkflowExecutionFailedCause',
  'START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_',
  ['WORKFLOW_ALREADY_EXISTS', 'NAMESPACE_NOT_FOUND'] as const,
);
export const SignalExternalFailedCause = enumValues(
  E + 'SignalExternalWorkflowExecutionFailedCause',
  'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_',
  ['EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND'] as const,
);
export const CancelExternalFailedCause = enumValues(
  E + 'CancelExternalWorkflowExecutionFailedCause',
  'CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_',
  ['EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND'] as const,
);
export const ContinueAsNewVersioningBehavior = enumValues(E + 'ContinueAsNewVersioningBehavior', 'CONTINUE_AS_NEW_VERSIONING_BEHAVIOR_', [
  'AUTO_UPGRADE',
  'USE_RAMPING_VERSION',
] as const);
export const ContinueAsNewInitiator = enumValues(E + 'ContinueAsNewInitiator', 'CONTINUE_AS_NEW_INITIATOR_', [
  'WORKFLOW',
  'RETRY',
] as const);
export const IndexedValueType = enumValues(E + 'IndexedValueType', 'INDEXED_VALUE_TYPE_', [
  'TEXT',
  'KEYWORD',
  'INT',
  'DOUBLE',
  'BOOL',
  'DATETIME',
  'KEYWORD_LIST',
] as const);
export const NamespaceState = enumValues(E + 'NamespaceState', 'NAMESPACE_STATE_', ['REGISTERED'] as const);
export const PendingActivityState = enumValues(E + 'PendingActivityState', 'PENDING_ACTIVITY_STATE_', [
  'SCHEDULED',
  'STARTED',
  'CANCEL_REQUESTED',
  'PAUSED',
  'PAUSE_REQUESTED',
] as const);
export const SuggestContinueAsNewReason = enumValues(E + 'SuggestContinueAsNewReason', 'SUGGEST_CONTINUE_AS_NEW_REASON_', [
  'HISTORY_SIZE_TOO_LARGE',
  'TOO_MANY_HISTORY_EVENTS',
  'TOO_MANY_UPDATES',
] as const);
export const UpdateAdmittedEventOrigin = enumValues(E + 'UpdateAdmittedEventOrigin', 'UPDATE_ADMITTED_EVENT_ORIGIN_', ['REAPPLY'] as const);
export const ResourceExhaustedCause = enumValues(E + 'ResourceExhaustedCause', 'RESOURCE_EXHAUSTED_CAUSE_', [
  'CONCURRENT_LIMIT',
  'BUSY_WORKFLOW',
] as const);
export const ResourceExhaustedScope = enumValues(E + 'ResourceExhaustedScope', 'RESOURCE_EXHAUSTED_SCOPE_', ['NAMESPACE'] as const);
export const PendingWorkflowTaskState = enumValues(E + 'PendingWorkflowTaskState', 'PENDING_WORKFLOW_TASK_STATE_', [
  'SCHEDULED',
  'STARTED',
] as const);
export const UpdateStage = enumValues(E + 'UpdateWorkflowExecutionLifecycleStage', 'UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_', [
  'ADMITTED',
  'ACCEPTED',
  'COMPLETED',
] as const);
export const ScheduleOverlap = enumValues(E + 'ScheduleOverlapPolicy', 'SCHEDULE_OVERLAP_POLICY_', [
  'UNSPECIFIED',
  'SKIP',
  'BUFFER_ONE',
  'BUFFER_ALL',
  'CANCEL_OTHER',
  'TERMINATE_OTHER',
  'ALLOW_ALL',
] as const);
export const VersioningBehavior = enumValues(E + 'VersioningBehavior', 'VERSIONING_BEHAVIOR_', ['PINNED', 'AUTO_UPGRADE'] as const);
export const WorkerVersioningMode = enumValues(E + 'WorkerVersioningMode', 'WORKER_VERSIONING_MODE_', ['VERSIONED'] as const);
export const VersionStatus = enumValues(E + 'WorkerDeploymentVersionStatus', 'WORKER_DEPLOYMENT_VERSION_STATUS_', [
  'INACTIVE',
  'CURRENT',
  'RAMPING',
  'DRAINING',
  'DRAINED',
] as const);
export const DrainageStatus = enumValues(E + 'VersionDrainageStatus', 'VERSION_DRAINAGE_STATUS_', ['DRAINING', 'DRAINED'] as const);
export const ActivityExecutionStatus = enumValues(E + 'ActivityExecutionStatus', 'ACTIVITY_EXECUTION_STATUS_', [
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'TERMINATED',
  'TIMED_OUT',
  'PAUSED',
] as const);
export const ActivityIdReusePolicy = enumValues(E + 'ActivityIdReusePolicy', 'ACTIVITY_ID_REUSE_POLICY_', [
  'ALLOW_DUPLICATE',
  'ALLOW_DUPLICATE_FAILED_ONLY',
  'REJECT_DUPLICATE',
] as const);
export const ActivityIdConflictPolicy = enumValues(E + 'ActivityIdConflictPolicy', 'ACTIVITY_ID_CONFLICT_POLICY_', [
  'FAIL',
  'USE_EXISTING',
] as const);
