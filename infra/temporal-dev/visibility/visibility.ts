// Visibility of workflow runs: execution info, Describe, and List/Count (query.ts) over the runs
// plus each schedule's scheduler workflow (scheduler/schedules.ts).
import { PendingWorkflowTaskState, Status, TaskQueueKind, VersioningBehavior } from '../common/enums.ts';
import type { Msg } from '../common/proto.ts';
import type { Registered } from '../common/search-attributes.ts';
import { msToProto } from '../common/time.ts';
import type { Execution } from '../history/workflow-execution.ts';
import { pageOf, parseQuery, payloadValue, queryRows, type Value, type VisibilityRow } from './query.ts';

/** What visibility lists in a namespace: its runs (in start order) and its schedules' scheduler workflows. */
export interface VisibilityHost {
  readonly runs: readonly Execution[];
  readonly schedules: { visibilityRows(): VisibilityRow[] };
}

const STATUS_NAMES = new Map<number, string>([
  [Status.RUNNING, 'Running'],
  [Status.COMPLETED, 'Completed'],
  [Status.FAILED, 'Failed'],
  [Status.CANCELED, 'Canceled'],
  [Status.TERMINATED, 'Terminated'],
  [Status.CONTINUED_AS_NEW, 'ContinuedAsNew'],
  [Status.TIMED_OUT, 'TimedOut'],
]);

const BEHAVIOR_NAMES = new Map<number, string>([
  [VersioningBehavior.PINNED, 'Pinned'],
  [VersioningBehavior.AUTO_UPGRADE, 'AutoUpgrade'],
]);

function executionRow(exec: Execution): VisibilityRow {
  return { value: (field) => fieldValue(exec, field), info: () => executionInfo(exec) };
}

function executionInfo(exec: Execution): Msg {
  const o = exec.options;
  return {
    execution: exec.ref,
    type: o.workflowType,
    startTime: msToProto(exec.startTime),
    closeTime: exec.closeTime !== undefined ? msToProto(exec.closeTime) : undefined,
    executionDuration: exec.closeTime !== undefined ? msToProto(exec.closeTime - exec.executionTime) : undefined,
    status: exec.status,
    historyLength: exec.history.lastEventId,
    historySizeBytes: exec.history.sizeBytes,
    stateTransitionCount: exec.stateTransitionCount,
    parentNamespaceId: o.parent?.namespaceId,
    parentExecution: o.parent?.execution,
    rootExecution: o.rootExecution ?? exec.ref,
    executionTime: msToProto(exec.executionTime),
    memo: { fields: exec.memo },
    searchAttributes: { indexedFields: { ...exec.searchAttributes, ...versioningAttributes(exec) } },
    taskQueue: o.taskQueue,
    firstRunId: o.firstRunId,
    priority: o.priority,
    versioningInfo: exec.versioningInfo(),
  };
}

/** Temporal sets these system attributes on versioned runs, and Describe and List show them (the Web UI reads them there). */
const VERSIONING_ATTRIBUTES = ['TemporalWorkerDeployment', 'TemporalWorkerDeploymentVersion', 'TemporalWorkflowVersioningBehavior'];

function versioningAttributes(exec: Execution): Record<string, Msg> {
  const out: Record<string, Msg> = {};
  for (const name of VERSIONING_ATTRIBUTES) {
    const value = fieldValue(exec, name);
    if (typeof value === 'string') out[name] = keywordPayload(value);
  }
  return out;
}

/** DescribeWorkflowExecution, with the fields Temporal's history service fills (no Nexus or callbacks). */
export function describeExecution(exec: Execution): Msg {
  const o = exec.options;
  const wt = exec.pendingWorkflowTask;
  const runExpiration = exec.runExpirationTime;
  return {
    executionConfig: {
      taskQueue: { name: o.taskQueue, kind: TaskQueueKind.NORMAL },
      workflowExecutionTimeout: o.executionTimeoutMs ? msToProto(o.executionTimeoutMs) : undefined,
      workflowRunTimeout: o.runTimeoutMs ? msToProto(o.runTimeoutMs) : undefined,
      defaultWorkflowTaskTimeout: msToProto(o.taskTimeoutMs),
      userMetadata: o.userMetadata,
    },
    workflowExecutionInfo: executionInfo(exec),
    pendingWorkflowTask: wt && {
      state: wt.startedTime === undefined ? PendingWorkflowTaskState.SCHEDULED : PendingWorkflowTaskState.STARTED,
      scheduledTime: msToProto(wt.scheduledTime),
      // Temporal's differs only for a speculative task made normal, which this server has not.
      originalScheduledTime: msToProto(wt.scheduledTime),
      startedTime: wt.startedTime === undefined ? undefined : msToProto(wt.startedTime),
      attempt: wt.attempt,
    },
    workflowExtendedInfo: {
      executionExpirationTime: o.expirationTime ? msToProto(o.expirationTime) : undefined,
      runExpirationTime: runExpiration === undefined ? undefined : msToProto(runExpiration),
      cancelRequested: exec.cancelRequested,
      originalStartTime: msToProto(exec.startTime),
      resetRunId: exec.resetRunId,
      lastResetTime: exec.resetTime === undefined ? undefined : msToProto(exec.resetTime),
    },
    pendingActivities: [...exec.activities.values()].map((a) => ({
      activityId: a.activityId,
      activityType: a.attrs.activityType,
      state: a.pendingState,
      heartbeatDetails: a.heartbeatDetails,
      lastHeartbeatTime: a.lastHeartbeatTime !== undefined ? msToProto(a.lastHeartbeatTime) : undefined,
      lastStartedTime: a.startedTime !== undefined ? msToProto(a.startedTime) : undefined,
      attempt: a.attempt,
      maximumAttempts: a.attrs.retryPolicy?.maximumAttempts ?? 0,
      scheduledTime: a.describedScheduledTime === undefined ? undefined : msToProto(a.describedScheduledTime),
      nextAttemptScheduleTime:
        a.state === 'backoff' && a.describedScheduledTime !== undefined ? msToProto(a.describedScheduledTime) : undefined,
      lastFailure: a.lastFailure,
      lastWorkerIdentity: a.startedIdentity,
      ...a.pauseDescription(),
      priority: a.attrs.priority,
    })),
    pendingChildren: [...exec.children.entries()].map(([initiatedId, c]) => ({
      workflowId: c.workflowId,
      runId: c.runId,
      workflowTypeName: c.workflowType?.name,
      initiatedId,
      parentClosePolicy: c.parentClosePolicy,
    })),
  };
}

export function listExecutions(server: Registered, ns: VisibilityHost, req: Msg): Msg {
  const matches = queryRows(server, newestFirst(ns), req.query ?? '');
  const { page, nextPageToken } = pageOf(matches, req.nextPageToken, req.pageSize);
  return { executions: page.map((r) => r.info()), nextPageToken };
}

export function countExecutions(server: Registered, ns: VisibilityHost, req: Msg): Msg {
  const { predicate, groupBy } = parseQuery(server, req.query ?? '');
  const matches = newestFirst(ns).filter(predicate);
  if (!groupBy) return { count: matches.length };
  const groups = new Map<string, number>();
  for (const row of matches) {
    const name = String(row.value('ExecutionStatus') ?? 'Unspecified');
    groups.set(name, (groups.get(name) ?? 0) + 1);
  }
  // In status order, as Temporal's SQL stores return the groups (the SDK's count test expects Running first).
  const rank = (name: string) => [...STATUS_NAMES].find(([, n]) => n === name)?.[0] ?? Number.MAX_SAFE_INTEGER;
  return {
    count: matches.length,
    groups: [...groups].sort(([a], [b]) => rank(a) - rank(b)).map(([name, count]) => ({ groupValues: [keywordPayload(name)], count })),
  };
}

/** Runs and scheduler workflows, newest first. */
function newestFirst(ns: VisibilityHost): VisibilityRow[] {
  const rows = [...ns.runs].reverse().map(executionRow);
  const schedules = ns.schedules.visibilityRows();
  if (schedules.length === 0) return rows;
  return [...rows, ...schedules].sort((a, b) => Number(b.value('StartTime')) - Number(a.value('StartTime')));
}

function keywordPayload(value: string): Msg {
  return {
    metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from('Keyword') },
    data: Buffer.from(JSON.stringify(value)),
  };
}

function fieldValue(exec: Execution, field: string): Value {
  switch (field) {
    case 'WorkflowId':
      return exec.workflowId;
    case 'RunId':
      return exec.runId;
    case 'WorkflowType':
      return exec.options.workflowType.name;
    case 'ExecutionStatus':
      return STATUS_NAMES.get(exec.status) ?? null;
    case 'TaskQueue':
      return exec.options.taskQueue;
    case 'StartTime':
      return exec.startTime;
    case 'CloseTime':
      return exec.closeTime ?? null;
    case 'ExecutionTime':
      return exec.executionTime;
    case 'HistoryLength':
      return exec.history.lastEventId;
    case 'HistorySizeBytes':
      return exec.history.sizeBytes;
    case 'StateTransitionCount':
      return exec.stateTransitionCount;
    case 'ExecutionDuration':
      return exec.closeTime === undefined ? null : (exec.closeTime - exec.executionTime) * 1e6;
    case 'RootWorkflowId':
      return (exec.options.rootExecution ?? exec.ref).workflowId;
    case 'RootRunId':
      return (exec.options.rootExecution ?? exec.ref).runId;
    case 'ParentWorkflowId':
      return exec.options.parent?.execution.workflowId ?? null;
    case 'ParentRunId':
      return exec.options.parent?.execution.runId ?? null;
    case 'TemporalWorkerDeployment':
      return exec.versioning.version?.deploymentName ?? null;
    case 'TemporalWorkerDeploymentVersion': {
      const v = exec.versioning.version;
      return v ? `${v.deploymentName}:${v.buildId}` : null;
    }
    case 'TemporalWorkflowVersioningBehavior':
      return BEHAVIOR_NAMES.get(exec.behavior) ?? null;
    default:
      return payloadValue(exec.searchAttributes[field]);
  }
}
