// temporal.api.workflowservice.v1.WorkflowService handlers.
import { randomUUID } from 'node:crypto';
import { HistoryFilter, IdConflictPolicy, TaskQueueKind, TaskQueueType, WorkerVersioningMode } from '../common/enums.ts';
import { alreadyExists, invalidArgument, notFound, requireField, workflowNotFound } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { msToProto, protoToMs } from '../common/time.ts';
import { decodeToken, type TaskToken } from '../common/tokens.ts';
import { updateWorkflowExecutionOptions } from '../deployments/deployments.ts';
import { ACTIVITY_TASK_NOT_FOUND } from '../history/activity-tasks.ts';
import { resetWorkflowExecution } from '../history/reset.ts';
import { executeMultiOperation } from '../history/update-with-start.ts';
import { validateUpdateRequest } from '../history/updates.ts';
import type { Execution } from '../history/workflow-execution.ts';
import type { Namespace, ServerState } from '../namespace/registry.ts';
import { searchAttributeKeys } from '../visibility/query.ts';
import { countExecutions, describeExecution, listExecutions } from '../visibility/visibility.ts';
import { activityControlHandlers } from './activity-control-service.ts';
import type { CallContext, Handler } from './grpc-server.ts';
import { withPayloadLimits } from './payload-limits.ts';

const SERVER_VERSION = '1.27.0-temporal-dev';
const WORKFLOW_TASK_NOT_FOUND = 'Workflow task not found.';
const QUERY_TASK_NOT_FOUND = 'query task not found, or already expired';
const NAMESPACE_NOT_SET = 'Namespace not set on request.';

export function workflowServiceHandlers(server: ServerState): Record<string, Handler> {
  // namespace-validator.ts has checked the namespace already.
  const ns = (req: Msg): Namespace => server.namespace(req.namespace);
  const openExecution = (req: Msg, execution: Msg | undefined): Execution => {
    const exec = ns(req).get(execution);
    if (!exec.isOpen) throw notFound('workflow execution already completed');
    return exec;
  };
  // Token checks in the order and words of Temporal's frontend and history service. The token was
  // read (and its namespace checked) by namespace-validator.ts already; a token of another kind
  // names no such task, so it gets the RPC's own NOT_FOUND.
  const fromToken = (
    bytes: Uint8Array | undefined,
    kind: TaskToken['kind'],
    taskNotFound: string,
  ): { token: TaskToken; exec: Execution } => {
    const token = decodeToken(bytes, server.namespaces.values());
    // Tasks running when the server stopped were requeued on restart; their old tokens are stale.
    // (A token in Temporal's format, boot '', names a run this server never had: not found below.)
    if (token.boot && token.boot !== server.bootId) throw notFound('Task token was issued before the server restarted.');
    if (token.kind !== kind) throw notFound(taskNotFound);
    const exec = server.namespace(token.namespace).find(token.workflowId, token.runId);
    if (!exec) throw workflowNotFound(token.workflowId, token.runId);
    return { token, exec };
  };
  const activity = (bytes: Uint8Array | undefined) => {
    const standalone = decodeToken(bytes, server.namespaces.values());
    if (standalone.kind === 'sa') {
      if (standalone.boot !== server.bootId) throw notFound('Task token was issued before the server restarted.');
      const act = server.namespace(standalone.namespace).activityExecutions.activityForToken(standalone);
      if (!act) throw notFound(ACTIVITY_TASK_NOT_FOUND);
      act.checkToken(standalone);
      return act;
    }
    const { token, exec } = fromToken(bytes, 'at', ACTIVITY_TASK_NOT_FOUND);
    if (!exec.isOpen) throw notFound('workflow execution already completed');
    const act = exec.activities.get(token.id);
    if (!act) throw notFound(ACTIVITY_TASK_NOT_FOUND);
    act.checkToken(token);
    return act;
  };
  // By workflow and activity id instead of task token. Only completion also takes an activity that
  // has not started (Temporal then writes its ActivityTaskStarted itself).
  const activityById = (req: Msg, completing = false) => {
    // No workflow id names a standalone activity (its run id in `runId`), when there is one.
    const standalone = req.workflowId ? undefined : req.activityId && ns(req).activityExecutions.byId(req.activityId, req.runId);
    if (!standalone) requireField(req.workflowId, 'WorkflowId');
    requireField(req.activityId, 'ActivityId');
    const act = standalone ? standalone.activity : workflowActivity(req);
    if (!act) throw notFound(ACTIVITY_TASK_NOT_FOUND);
    if (!act.isStarted) {
      if (!completing) throw notFound(ACTIVITY_TASK_NOT_FOUND);
      act.forceStart(req.identity ?? '');
    }
    return act;
  };

  const workflowActivity = (req: Msg) => {
    const exec = ns(req).get({ workflowId: req.workflowId, runId: req.runId });
    if (!exec.isOpen) throw notFound('workflow execution already completed');
    const act = [...exec.activities.values()].find((a) => a.activityId === req.activityId);
    if (!act) {
      throw notFound(`cannot find pending activity with ActivityID ${req.activityId}, check workflow execution history for more details`);
    }
    return act;
  };

  return withPayloadLimits(server.limits, {
    GetSystemInfo: () => ({
      serverVersion: SERVER_VERSION,
      capabilities: {
        signalAndQueryHeader: true,
        internalErrorDifferentiation: true,
        activityFailureIncludeHeartbeat: true,
        encodedFailureAttributes: true,
        upsertMemo: true,
        eagerWorkflowStart: true,
        sdkMetadata: true,
        // SDK workers then stamp their build id on polls and completions (WorkflowTaskStarted and
        // WorkflowTaskCompleted carry it, a replaying worker's currentBuildId comes from it).
        buildIdBasedVersioning: true,
        countGroupByExecutionStatus: true,
      },
    }),
    GetClusterInfo: () => ({ serverVersion: SERVER_VERSION, clusterName: 'temporal-dev', clusterId: 'temporal-dev', historyShardCount: 1 }),

    RegisterNamespace: (req) => {
      const name: string = req.namespace;
      if (!name) throw invalidArgument(NAMESPACE_NOT_SET);
      if (server.namespaces.has(name)) throw alreadyExists('Namespace already exists.');
      server.register(name, req.description ?? '', protoToMs(req.workflowExecutionRetentionPeriod));
      return {};
    },
    DescribeNamespace: (req) => {
      if (!req.id && !req.namespace) throw invalidArgument(NAMESPACE_NOT_SET);
      if (req.id) {
        const found = [...server.namespaces.values()].find((n) => n.id === req.id);
        if (!found) throw notFound(`Namespace ${req.id} is not found.`);
        return found.info();
      }
      return ns(req).info();
    },
    ListNamespaces: () => ({ namespaces: [...server.namespaces.values()].map((n) => n.info()) }),

    StartWorkflowExecution: (req) => {
      const { exec, started, eagerWorkflowTask } = ns(req).starts.start(req);
      return { runId: exec.runId, started, status: exec.status, eagerWorkflowTask };
    },
    SignalWorkflowExecution: (req) => {
      requireField(req.signalName, 'SignalName');
      const exec = openExecution(req, req.workflowExecution);
      signal(exec, req);
      return {};
    },
    SignalWithStartWorkflowExecution: (req) => {
      requireField(req.signalName, 'SignalName');
      const namespace = ns(req);
      const current = namespace.current(requireField<string>(req.workflowId, 'WorkflowId'));
      const signalRequest = { ...req, input: req.signalInput };
      // Temporal checks the start part even when the signal goes to a running workflow.
      namespace.starts.validate(req);
      if (current?.isOpen && req.workflowIdConflictPolicy !== IdConflictPolicy.TERMINATE_EXISTING) {
        signal(current, signalRequest);
        return { runId: current.runId, started: false };
      }
      // The signal is one of the run's initial events, written before its first workflow task.
      const { exec, started } = namespace.starts.start(req, (e) =>
        e.append('workflowExecutionSignaledEventAttributes', signalAttributes(signalRequest)),
      );
      return { runId: exec.runId, started };
    },
    UpdateWorkflowExecution: (req, ctx) => {
      const namespace = ns(req);
      validateUpdateRequest(req, server.dynamicConfig.get('limit.maxIDLength'));
      return namespace.get(req.workflowExecution).updates.request(req, ctx.signal);
    },
    ExecuteMultiOperation: (req, ctx) => executeMultiOperation(ns(req), req, ctx.signal),
    PollWorkflowExecutionUpdate: (req, ctx) => ns(req).get(req.updateRef?.workflowExecution).updates.poll(req, ctx.signal),
    QueryWorkflow: (req, ctx) => ns(req).get(req.execution).queries.query(req, ctx.signal),
    RespondQueryTaskCompleted: (req) => {
      const { token, exec } = fromToken(req.taskToken, 'qt', QUERY_TASK_NOT_FOUND);
      exec.queries.answer(token.id, {
        resultType: req.completedType,
        answer: req.queryResult,
        errorMessage: req.errorMessage,
        failure: req.failure,
      });
      return {};
    },
    RequestCancelWorkflowExecution: (req) => {
      const exec = openExecution(req, req.workflowExecution);
      if (req.requestId && exec.requestIds.has(req.requestId)) return {};
      if (req.requestId) exec.addRequestId(req.requestId);
      exec.requestCancel({ cause: req.reason, identity: req.identity });
      return {};
    },
    TerminateWorkflowExecution: (req) => {
      const exec = openExecution(req, req.workflowExecution);
      exec.terminate(req.reason ?? '', req.details, req.identity ?? '');
      return {};
    },
    DescribeWorkflowExecution: (req) => describeExecution(ns(req).get(req.execution)),
    ResetWorkflowExecution: (req) => {
      requireField(req.workflowExecution?.workflowId, 'WorkflowId');
      return resetWorkflowExecution(ns(req), req);
    },
    GetWorkflowExecutionHistory: (req, ctx) =>
      getHistory(ns(req).get(req.execution), req, ctx, server.dynamicConfig.get('history.longPollExpirationInterval')),

    PollWorkflowTaskQueue: async (req, ctx) => {
      const namespace = ns(req);
      const queue = requireField<string>(req.taskQueue?.name, 'TaskQueue');
      // A worker's sticky queue is its own; a normal queue is split by worker version.
      const key =
        req.taskQueue.kind === TaskQueueKind.STICKY
          ? namespace.queueKey(queue)
          : namespace.deployments.pollKey(queue, TaskQueueType.WORKFLOW, req.deploymentOptions);
      const stamp = pollerStamp(req.workerVersionCapabilities, req.deploymentOptions);
      return (await server.workflowTasks.poll(key, req.identity ?? '', randomUUID(), ctx.signal, stamp)) ?? {};
    },
    RespondWorkflowTaskCompleted: (req) => {
      const { token, exec } = fromToken(req.taskToken, 'wt', WORKFLOW_TASK_NOT_FOUND);
      return exec.completeWorkflowTask(token, req);
    },
    RespondWorkflowTaskFailed: (req) => {
      const { token, exec } = fromToken(req.taskToken, 'wt', WORKFLOW_TASK_NOT_FOUND);
      if (!exec.isOpen) throw notFound('workflow execution already completed');
      return exec.failWorkflowTask(token, req);
    },
    ResetStickyTaskQueue: (req) => {
      ns(req).get(req.execution).resetSticky();
      return {};
    },
    ShutdownWorker: (req) => {
      const namespace = ns(req);
      if (req.stickyTaskQueue) {
        for (const exec of namespace.open) if (exec.stickyTaskQueue === req.stickyTaskQueue) exec.resetSticky();
      }
      // The worker stops polling: its version no longer has it as a poller (see DeleteWorkerDeploymentVersion).
      if (req.identity) {
        // Keys are `<namespace>\0<queue>`, and `\0<deployment>\0<build id>` for a version's share.
        const base = namespace.queueKey(req.taskQueue ?? '');
        const matches = (key: string) => (req.taskQueue ? key === base || key.startsWith(`${base}\u0000`) : key.startsWith(base));
        server.workflowTasks.forgetPoller(matches, req.identity);
        server.activityTasks.forgetPoller(matches, req.identity);
      }
      return {};
    },

    PollActivityTaskQueue: async (req, ctx) => {
      const namespace = ns(req);
      const queue = requireField<string>(req.taskQueue?.name, 'TaskQueue');
      const key = namespace.deployments.pollKey(queue, TaskQueueType.ACTIVITY, req.deploymentOptions);
      return (await server.activityTasks.poll(key, req.identity ?? '', randomUUID(), ctx.signal)) ?? {};
    },
    // The pollers of one task queue type (workflow unless ACTIVITY), as the Web UI shows them;
    // versioned workers with their deployment options.
    DescribeTaskQueue: (req) => {
      const namespace = ns(req);
      const queue = requireField<string>(req.taskQueue?.name, 'TaskQueue');
      const type = req.taskQueueType === TaskQueueType.ACTIVITY ? TaskQueueType.ACTIVITY : TaskQueueType.WORKFLOW;
      const tasks = type === TaskQueueType.ACTIVITY ? server.activityTasks : server.workflowTasks;
      const deployments = namespace.deployments;
      const versions = [undefined, ...deployments.versionsPolling(queue, type)];
      const pollers = versions.flatMap((version) =>
        tasks.recentPollers(deployments.queueKey(queue, version)).map((p) => ({
          identity: p.identity,
          lastAccessTime: msToProto(p.lastAccessMs),
          // The SDK workers' default maximum, which Temporal reports for them.
          ratePerSecond: 100_000,
          deploymentOptions: version && { ...version, workerVersioningMode: WorkerVersioningMode.VERSIONED },
          lastAccessMs: p.lastAccessMs,
        })),
      );
      pollers.sort((a, b) => b.lastAccessMs - a.lastAccessMs);
      return { pollers: pollers.map(({ lastAccessMs: _, ...p }) => p) };
    },
    RecordActivityTaskHeartbeat: (req) => activity(req.taskToken).heartbeat(req.details),
    RespondActivityTaskCompleted: (req) => {
      activity(req.taskToken).complete(req.result, req.identity ?? '');
      return {};
    },
    RespondActivityTaskFailed: (req) => {
      activity(req.taskToken).fail(req.failure, req.lastHeartbeatDetails, req.identity ?? '');
      return {};
    },
    RespondActivityTaskCanceled: (req) => {
      activity(req.taskToken).canceled(req.details, req.identity ?? '');
      return {};
    },
    RecordActivityTaskHeartbeatById: (req) => activityById(req).heartbeat(req.details),
    RespondActivityTaskCompletedById: (req) => {
      activityById(req, true).complete(req.result, req.identity ?? '');
      return {};
    },
    RespondActivityTaskFailedById: (req) => {
      activityById(req).fail(req.failure, req.lastHeartbeatDetails, req.identity ?? '');
      return {};
    },
    RespondActivityTaskCanceledById: (req) => {
      activityById(req).canceled(req.details, req.identity ?? '');
      return {};
    },
    ...activityControlHandlers(server),

    ListWorkflowExecutions: (req) => listExecutions(server, ns(req), req),
    CountWorkflowExecutions: (req) => countExecutions(server, ns(req), req),
    GetSearchAttributes: () => ({ keys: searchAttributeKeys(server) }),

    StartActivityExecution: (req) => ns(req).activityExecutions.start(req),
    DescribeActivityExecution: (req) => ns(req).activityExecutions.describe(req),
    PollActivityExecution: (req, ctx) => ns(req).activityExecutions.poll(req, ctx.signal),
    ListActivityExecutions: (req) => ns(req).activityExecutions.list(req),
    CountActivityExecutions: (req) => ns(req).activityExecutions.count(req),
    RequestCancelActivityExecution: (req) => ns(req).activityExecutions.requestCancel(req),
    TerminateActivityExecution: (req) => ns(req).activityExecutions.terminate(req),
    DeleteActivityExecution: (req) => ns(req).activityExecutions.delete(req),
    PauseActivityExecution: (req) => ns(req).activityExecutions.pause(req),
    UnpauseActivityExecution: (req) => ns(req).activityExecutions.unpause(req),
    ResetActivityExecution: (req) => ns(req).activityExecutions.reset(req),
    UpdateActivityExecutionOptions: (req) => ns(req).activityExecutions.updateOptions(req),

    DescribeWorkerDeployment: (req) => ns(req).deployments.describeDeployment(req),
    ListWorkerDeployments: (req) => ns(req).deployments.listDeployments(req),
    DescribeWorkerDeploymentVersion: (req) => ns(req).deployments.describeVersion(req),
    SetWorkerDeploymentCurrentVersion: (req) => ns(req).deployments.setCurrent(req),
    SetWorkerDeploymentRampingVersion: (req) => ns(req).deployments.setRamping(req),
    DeleteWorkerDeploymentVersion: (req) => ns(req).deployments.deleteVersion(req),
    DeleteWorkerDeployment: (req) => ns(req).deployments.deleteDeployment(req),
    UpdateWorkflowExecutionOptions: (req) => updateWorkflowExecutionOptions(ns(req), req),

    CreateSchedule: (req) => ns(req).schedules.create(req),
    DescribeSchedule: (req) => ns(req).schedules.describe(req),
    UpdateSchedule: (req) => ns(req).schedules.update(req),
    PatchSchedule: (req) => ns(req).schedules.patch(req),
    DeleteSchedule: (req) => ns(req).schedules.delete(req),
    ListSchedules: (req) => ns(req).schedules.list(req),
    CountSchedules: (req) => ns(req).schedules.count(req),
    ListScheduleMatchingTimes: (req) => ns(req).schedules.matchingTimes(req),
  });
}

function signal(exec: Execution, req: Msg): void {
  if (req.requestId) {
    if (exec.requestIds.has(req.requestId)) return;
    exec.addRequestId(req.requestId);
  }
  exec.record('workflowExecutionSignaledEventAttributes', signalAttributes(req));
}

function signalAttributes(req: Msg): Msg {
  return { signalName: req.signalName, input: req.input, identity: req.identity, header: req.header };
}

/** `longPollMs`: how long a waitNewEvent poll waits before answering empty (the client then polls again). */
async function getHistory(exec: Execution, req: Msg, ctx: CallContext, longPollMs: number): Promise<Msg> {
  const closeOnly = req.historyEventFilterType === HistoryFilter.CLOSE_EVENT;
  const pageSize: number = req.maximumPageSize || 1000;
  let start = 0;
  if (req.nextPageToken?.length) {
    start = Number(Buffer.from(req.nextPageToken).toString('utf8'));
    if (!Number.isInteger(start) || start < 0) throw invalidArgument('Invalid NextPageToken.');
  }
  const deadline = Date.now() + longPollMs;
  for (;;) {
    const events = exec.history.events;
    if (closeOnly) {
      if (!exec.isOpen) return { history: { events: events.slice(-1) } };
    } else {
      const page = events.slice(start, start + pageSize);
      const next = start + page.length;
      if (page.length > 0 || !req.waitNewEvent || !exec.isOpen) {
        const more = next < events.length || (req.waitNewEvent && exec.isOpen);
        return { history: { events: page }, nextPageToken: more ? Buffer.from(String(next)) : undefined };
      }
    }
    const remaining = deadline - Date.now();
    if (!req.waitNewEvent || remaining <= 0 || ctx.signal.aborted) {
      return { history: { events: [] }, nextPageToken: Buffer.from(String(start)) };
    }
    await exec.history.waitForChange(ctx.signal, remaining);
  }
}

/**
 * The WorkerVersionStamp Temporal writes on WorkflowTaskStarted from a poll: the build id of a
 * worker not on worker deployments (none for a versioned deployment worker).
 */
function pollerStamp(capabilities: Msg | undefined, options: Msg | undefined): Msg | undefined {
  if (options?.workerVersioningMode === WorkerVersioningMode.VERSIONED && options.deploymentName) return undefined;
  if (capabilities?.useVersioning && capabilities.deploymentSeriesName) return undefined;
  return capabilities?.buildId ? { useVersioning: Boolean(capabilities.useVersioning), buildId: capabilities.buildId } : undefined;
}
