// temporal.api.workflowservice.v1.WorkflowService handlers.
import { randomUUID } from 'node:crypto';
import { HistoryFilter, IdConflictPolicy, TaskQueueType } from './enums.ts';
import { alreadyExists, invalidArgument, notFound, requireField } from './errors.ts';
import type { CallContext, Handler } from './grpc-server.ts';
import { withPayloadLimits } from './limits.ts';
import type { Namespace, ServerState } from './namespaces.ts';
import type { Msg } from './proto.ts';
import { msToProto, protoToMs } from './time.ts';
import { decodeToken, type TaskToken } from './tokens.ts';
import { countExecutions, describeExecution, listExecutions, searchAttributeKeys } from './visibility.ts';
import type { Execution } from './workflow-execution.ts';

const SERVER_VERSION = '1.27.0-temporal-dev';
/** How long a history long poll waits before answering empty (the client then polls again). */
const HISTORY_LONG_POLL_MS = 20_000;

export function workflowServiceHandlers(server: ServerState): Record<string, Handler> {
  const ns = (req: Msg): Namespace => server.namespace(requireField<string>(req.namespace, 'Namespace'));
  const openExecution = (req: Msg, execution: Msg | undefined): Execution => {
    const exec = ns(req).get(execution);
    if (!exec.isOpen) throw notFound('workflow execution already completed');
    return exec;
  };
  const fromToken = (bytes: Uint8Array | undefined, kind: TaskToken['kind']): { token: TaskToken; exec: Execution } => {
    const token = decodeToken(bytes, kind);
    // Tasks running when the server stopped were requeued on restart; their old tokens are stale.
    if (token.boot !== server.bootId) throw notFound('Task token was issued before the server restarted.');
    const exec = server.namespace(token.namespace).find(token.workflowId, token.runId);
    if (!exec) throw notFound('workflow execution not found for task token');
    return { token, exec };
  };
  const activity = (bytes: Uint8Array | undefined) => {
    const { token, exec } = fromToken(bytes, 'at');
    const act = exec.activities.get(token.id);
    if (!act) throw notFound('Activity task not found.');
    act.checkToken(token);
    return act;
  };
  // Async completion by workflow and activity id instead of task token (Temporal accepts started activities).
  const activityById = (req: Msg) => {
    const exec = ns(req).get({ workflowId: req.workflowId, runId: req.runId });
    const act = [...exec.activities.values()].find((a) => a.activityId === req.activityId);
    if (act?.state !== 'started') throw notFound('Activity task not found.');
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
        sdkMetadata: true,
        countGroupByExecutionStatus: true,
      },
    }),
    GetClusterInfo: () => ({ serverVersion: SERVER_VERSION, clusterName: 'temporal-dev', clusterId: 'temporal-dev', historyShardCount: 1 }),

    RegisterNamespace: (req) => {
      const name = requireField<string>(req.namespace, 'Namespace');
      if (server.namespaces.has(name)) throw alreadyExists('Namespace already exists.');
      server.register(name, req.description ?? '', protoToMs(req.workflowExecutionRetentionPeriod));
      return {};
    },
    DescribeNamespace: (req) => {
      if (req.id) {
        const found = [...server.namespaces.values()].find((n) => n.id === req.id);
        if (!found) throw notFound(`Namespace ${req.id} is not found.`);
        return found.info();
      }
      return ns(req).info();
    },
    ListNamespaces: () => ({ namespaces: [...server.namespaces.values()].map((n) => n.info()) }),

    StartWorkflowExecution: (req) => {
      const { exec, started } = ns(req).starts.start(req);
      return { runId: exec.runId, started };
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
    UpdateWorkflowExecution: (req, ctx) => ns(req).get(req.workflowExecution).updates.request(req, ctx.signal),
    PollWorkflowExecutionUpdate: (req, ctx) => ns(req).get(req.updateRef?.workflowExecution).updates.poll(req, ctx.signal),
    QueryWorkflow: (req, ctx) => ns(req).get(req.execution).queries.query(req, ctx.signal),
    RespondQueryTaskCompleted: (req) => {
      const { token, exec } = fromToken(req.taskToken, 'qt');
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
    GetWorkflowExecutionHistory: (req, ctx) => getHistory(ns(req).get(req.execution), req, ctx),

    PollWorkflowTaskQueue: async (req, ctx) => {
      const namespace = ns(req);
      const queue = requireField<string>(req.taskQueue?.name, 'TaskQueue');
      return (await server.workflowTasks.poll(namespace.queueKey(queue), req.identity ?? '', randomUUID(), ctx.signal)) ?? {};
    },
    RespondWorkflowTaskCompleted: (req) => {
      const { token, exec } = fromToken(req.taskToken, 'wt');
      return exec.completeWorkflowTask(token, req);
    },
    RespondWorkflowTaskFailed: (req) => {
      const { token, exec } = fromToken(req.taskToken, 'wt');
      return exec.failWorkflowTask(token, req);
    },
    ResetStickyTaskQueue: (req) => {
      ns(req).get(req.execution).resetSticky();
      return {};
    },
    ShutdownWorker: (req) => {
      if (req.stickyTaskQueue) {
        for (const exec of ns(req).open) if (exec.stickyTaskQueue === req.stickyTaskQueue) exec.resetSticky();
      }
      return {};
    },

    PollActivityTaskQueue: async (req, ctx) => {
      const namespace = ns(req);
      const queue = requireField<string>(req.taskQueue?.name, 'TaskQueue');
      return (await server.activityTasks.poll(namespace.queueKey(queue), req.identity ?? '', randomUUID(), ctx.signal)) ?? {};
    },
    // The pollers of one task queue type (workflow unless ACTIVITY), as the Web UI shows them.
    DescribeTaskQueue: (req) => {
      const key = ns(req).queueKey(requireField<string>(req.taskQueue?.name, 'TaskQueue'));
      const tasks = req.taskQueueType === TaskQueueType.ACTIVITY ? server.activityTasks : server.workflowTasks;
      // ratePerSecond: the SDK workers' default maximum, which Temporal reports for them.
      return {
        pollers: tasks
          .recentPollers(key)
          .map((p) => ({ identity: p.identity, lastAccessTime: msToProto(p.lastAccessMs), ratePerSecond: 100_000 })),
      };
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
      activityById(req).complete(req.result, req.identity ?? '');
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

    ListWorkflowExecutions: (req) => listExecutions(server, ns(req), req),
    CountWorkflowExecutions: (req) => countExecutions(server, ns(req), req),
    GetSearchAttributes: () => ({ keys: searchAttributeKeys(server) }),

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

async function getHistory(exec: Execution, req: Msg, ctx: CallContext): Promise<Msg> {
  const closeOnly = req.historyEventFilterType === HistoryFilter.CLOSE_EVENT;
  const pageSize: number = req.maximumPageSize || 1000;
  let start = 0;
  if (req.nextPageToken?.length) {
    start = Number(Buffer.from(req.nextPageToken).toString('utf8'));
    if (!Number.isInteger(start) || start < 0) throw invalidArgument('Invalid NextPageToken.');
  }
  const deadline = Date.now() + HISTORY_LONG_POLL_MS;
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
