// The operator's calls on a run's pending activities (Temporal 1.27+): PauseActivity,
// UnpauseActivity, ResetActivity and UpdateActivityOptions, each aimed at activities by id, by
// type or (unpause, reset, update) all of them. The state changes live in activity-tasks.ts.

import type { PendingActivity } from './activity-tasks.ts';
import { invalidArgument, notFound } from './errors.ts';
import type { Handler } from './grpc-server.ts';
import type { ServerState } from './namespaces.ts';
import type { Msg } from './proto.ts';
import { withRetryDefaults } from './retry.ts';
import { msToProto, protoToMs } from './time.ts';
import type { Execution } from './workflow-execution.ts';

const ACTIVITY_NOT_FOUND = "Can't find pending activity with such ID. Invalid activityID or activity already completed";

/** Option fields an update mask may name (camelCase paths, as Temporal's MergeActivityOptions knows them). */
const MASK_PATHS = new Set([
  'taskQueue.name',
  'scheduleToCloseTimeout',
  'scheduleToStartTimeout',
  'startToCloseTimeout',
  'heartbeatTimeout',
  'priority',
  'priority.priorityKey',
  'priority.fairnessKey',
  'priority.fairnessWeight',
  'retryPolicy',
  'retryPolicy.initialInterval',
  'retryPolicy.backoffCoefficient',
  'retryPolicy.maximumInterval',
  'retryPolicy.maximumAttempts',
]);

export function activityControlHandlers(server: ServerState): Record<string, Handler> {
  /** The open run and its targeted pending activities, after the frontend's request checks. */
  const resolve = (req: Msg, allField?: string): { exec: Execution; targets: PendingActivity[] } => {
    if (!req.execution?.workflowId) throw invalidArgument('WorkflowId is not set on request.');
    const all = allField !== undefined && req[allField] !== undefined;
    if (req.id === undefined && req.type === undefined && !all) {
      throw invalidArgument('Either Activity.Id or Activity.Type should be set on request.');
    }
    const exec = server.namespace(req.namespace).get(req.execution);
    if (!exec.isOpen) throw notFound('workflow execution already completed');
    const pending = [...exec.activities.values()];
    const targets =
      req.id !== undefined
        ? pending.filter((a) => a.activityId === req.id)
        : req.type !== undefined
          ? pending.filter((a) => a.attrs.activityType?.name === req.type)
          : pending;
    if (targets.length === 0) throw notFound(ACTIVITY_NOT_FOUND);
    return { exec, targets };
  };

  return {
    PauseActivity: (req) => {
      const { targets } = resolve(req);
      const info = {
        pauseTime: server.clock.now(),
        identity: req.identity ?? '',
        reason: req.reason ?? '',
        requestId: req.requestId ?? '',
      };
      for (const a of targets) a.pause(info);
      return {};
    },
    UnpauseActivity: (req) => {
      const { targets } = resolve(req, 'unpauseAll');
      for (const a of targets) a.unpause(Boolean(req.resetAttempts), Boolean(req.resetHeartbeat), protoToMs(req.jitter) ?? 0);
      return {};
    },
    ResetActivity: (req) => {
      const { exec, targets } = resolve(req, 'matchAll');
      for (const a of targets) {
        const original = req.restoreOriginalOptions ? originalOptions(exec, a) : undefined;
        a.resetAttempts(Boolean(req.resetHeartbeat), Boolean(req.keepPaused), protoToMs(req.jitter) ?? 0, original);
      }
      return {};
    },
    UpdateActivityOptions: (req) => {
      const paths = optionsUpdatePaths(req);
      const { exec, targets } = resolve(req, 'matchAll');
      return updateOptions(targets, req, paths, (a) => originalOptions(exec, a));
    },
  };
}

/** The update mask's paths (camel case), after the frontend's first check of an options update. */
export function optionsUpdatePaths(req: Msg): string[] {
  const paths = ((req.updateMask?.paths ?? []) as string[]).map(camelPath);
  if (req.restoreOriginal && paths.length > 0) throw invalidArgument('Both UpdateMask and RestoreOriginal are provided');
  return paths;
}

/**
 * Applies an options update (UpdateActivityOptions, UpdateActivityExecutionOptions) to `targets`:
 * the masked fields of `req.activityOptions`, or with `restoreOriginal` the options `original`
 * gives. Answers the resulting ActivityOptions.
 */
export function updateOptions(targets: PendingActivity[], req: Msg, paths: string[], original: (a: PendingActivity) => Msg): Msg {
  if (req.restoreOriginal) {
    let options: Msg = {};
    for (const a of targets) {
      a.updateOptions(original(a));
      options = optionsOf(a);
    }
    return { activityOptions: options };
  }
  const changes: Msg | undefined = req.activityOptions;
  if (!changes) throw invalidArgument('ActivityOptions are not provided');
  if (!req.updateMask) throw invalidArgument('UpdateMask is not provided');
  // Every target is checked before any changes, so a bad request changes nothing.
  const merged = targets.map((a) => [a, mergeOptions(optionsOf(a), changes, paths)] as const);
  for (const [a, options] of merged) a.updateOptions(toAttrs(a, options));
  return { activityOptions: merged.at(-1)![1] };
}

const camelPath = (path: string) => path.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** The options of the ActivityTaskScheduled event, for restoreOriginal(Options). */
function originalOptions(exec: Execution, a: PendingActivity): Msg {
  return scheduledOptions(exec.history.events[a.scheduledEventId - 1]?.activityTaskScheduledEventAttributes ?? {});
}

/** The option fields of ActivityTaskScheduled attributes (a standalone activity's start is such attributes too). */
export function scheduledOptions(scheduled: Msg): Msg {
  return {
    taskQueue: scheduled.taskQueue,
    scheduleToCloseTimeout: scheduled.scheduleToCloseTimeout,
    scheduleToStartTimeout: scheduled.scheduleToStartTimeout,
    startToCloseTimeout: scheduled.startToCloseTimeout,
    heartbeatTimeout: scheduled.heartbeatTimeout,
    retryPolicy: scheduled.retryPolicy,
    priority: scheduled.priority,
  };
}

/** The ActivityOptions view of an activity's current options. */
function optionsOf(a: PendingActivity): Msg {
  const t = a.attrs;
  const retry = t.retryPolicy ?? {};
  return {
    taskQueue: { name: t.taskQueue?.name },
    scheduleToCloseTimeout: t.scheduleToCloseTimeout,
    scheduleToStartTimeout: t.scheduleToStartTimeout,
    startToCloseTimeout: t.startToCloseTimeout,
    heartbeatTimeout: t.heartbeatTimeout,
    priority: t.priority,
    retryPolicy: {
      initialInterval: retry.initialInterval,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumInterval,
      maximumAttempts: retry.maximumAttempts,
    },
  };
}

/** Back into ActivityTaskScheduled form; non-retryable error types are not an option and stay. */
function toAttrs(a: PendingActivity, o: Msg): Msg {
  return {
    taskQueue: { ...a.attrs.taskQueue, name: o.taskQueue.name },
    scheduleToCloseTimeout: o.scheduleToCloseTimeout,
    scheduleToStartTimeout: o.scheduleToStartTimeout,
    startToCloseTimeout: o.startToCloseTimeout,
    heartbeatTimeout: o.heartbeatTimeout,
    priority: o.priority,
    retryPolicy: { ...a.attrs.retryPolicy, ...o.retryPolicy },
  };
}

/** Applies the masked fields of `from` to `into`, then validates and fills the timeouts as Temporal does. */
function mergeOptions(into: Msg, from: Msg, paths: string[]): Msg {
  const out: Msg = {
    ...into,
    taskQueue: { ...into.taskQueue },
    retryPolicy: { ...into.retryPolicy },
    priority: into.priority && { ...into.priority },
  };
  for (const path of paths) {
    if (!MASK_PATHS.has(path)) continue;
    const [head, sub] = path.split('.') as [string, string | undefined];
    if (sub === undefined) {
      if (head === 'retryPolicy' && !from.retryPolicy) throw invalidArgument('RetryPolicy is not provided');
      out[head] = from[head];
      continue;
    }
    if (!from[head])
      throw invalidArgument(`${head === 'taskQueue' ? 'TaskQueue' : head === 'priority' ? 'Priority' : 'RetryPolicy'} is not provided`);
    out[head] = { ...out[head], [sub]: from[head][sub] };
  }
  if (paths.some((p) => p.startsWith('retryPolicy.'))) validateRetryPolicy(out.retryPolicy);
  return normalizeTimeouts(out);
}

/** A standalone activity's start options, checked and completed as UpdateActivityOptions' result is. */
export function normalizeActivityOptions(o: Msg): Msg {
  // Temporal checks the policy with its defaults filled in.
  const retryPolicy = withRetryDefaults(o.retryPolicy);
  validateRetryPolicy(retryPolicy);
  return normalizeTimeouts({ ...o, retryPolicy });
}

function validateRetryPolicy(policy: Msg): void {
  if (policy.maximumAttempts === 1) return;
  if ((policy.backoffCoefficient ?? 0) < 1) throw invalidArgument('BackoffCoefficient cannot be less than 1 on retry policy.');
  const initial = protoToMs(policy.initialInterval) ?? 0;
  const maximum = protoToMs(policy.maximumInterval) ?? 0;
  if (maximum > 0 && maximum < initial) throw invalidArgument('MaximumInterval cannot be less than InitialInterval on retry policy.');
  if ((policy.maximumAttempts ?? 0) < 0) throw invalidArgument('MaximumAttempts cannot be negative on retry policy.');
}

/** Temporal's deduction of missing timeouts (no run-timeout cap: the update path passes none). */
function normalizeTimeouts(o: Msg): Msg {
  for (const field of ['scheduleToCloseTimeout', 'scheduleToStartTimeout', 'startToCloseTimeout', 'heartbeatTimeout']) {
    if (Number(o[field]?.seconds ?? 0) < 0 || Number(o[field]?.nanos ?? 0) < 0) {
      throw invalidArgument(`invalid ${field[0]!.toUpperCase()}${field.slice(1)}: negative duration`);
    }
  }
  const close = protoToMs(o.scheduleToCloseTimeout) ?? 0;
  const toStart = protoToMs(o.scheduleToStartTimeout) ?? 0;
  const toCloseStart = protoToMs(o.startToCloseTimeout) ?? 0;
  let scheduleToStart = toStart;
  let startToClose = toCloseStart;
  if (close > 0) {
    scheduleToStart = toStart > 0 ? Math.min(toStart, close) : close;
    startToClose = toCloseStart > 0 ? Math.min(toCloseStart, close) : close;
  } else if (toCloseStart === 0) {
    throw invalidArgument('a valid StartToCloseTimeout or ScheduleToCloseTimeout must be set on the activity.');
  }
  const heartbeat = Math.min(protoToMs(o.heartbeatTimeout) ?? 0, startToClose);
  return {
    ...o,
    scheduleToCloseTimeout: msToProto(close),
    scheduleToStartTimeout: msToProto(scheduleToStart),
    startToCloseTimeout: msToProto(startToClose),
    heartbeatTimeout: msToProto(heartbeat),
  };
}
