// The activity option rules of the operator's calls (Temporal 1.27+) that runs' activities
// (frontend/activity-control-service.ts) and standalone activities share: update masks, merging,
// validation, the original options. The state changes live in activity-tasks.ts.

import { invalidArgument } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { withRetryDefaults } from '../common/retry.ts';
import { msToProto, protoToMs } from '../common/time.ts';
import type { PendingActivity } from './activity-tasks.ts';

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
