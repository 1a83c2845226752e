// ResetWorkflowExecution, as Temporal's history service does it (its workflow resetter): a new run
// of the workflow id whose history is the base run's up to a workflow task (copied as is, so the
// worker replays it and the started event keeps its originalExecutionRunId), that task failed
// with cause RESET_WORKFLOW, the signals and updates the base run (and the runs it continued as)
// received after that point reapplied as the request's reapply options say, and a new workflow
// task. The run that was current, if still running, is terminated with the reset's reason.
import { randomUUID } from 'node:crypto';
import { ResetReapplyExcludeType, ResetReapplyType, Status, UpdateAdmittedEventOrigin, WorkflowTaskFailedCause } from '../common/enums.ts';
import { invalidArgument } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { protoToMs } from '../common/time.ts';
import type { ActivitySnapshot } from './activity-tasks.ts';
import { DEFAULT_STICKY_TIMEOUT_MS, Execution, type ExecutionSnapshot } from './workflow-execution.ts';
import type { StartsHost } from './workflow-starts.ts';

/** Temporal's identities for what its resetter writes. */
const RESETTER = 'history-resetter';
const HISTORY_SERVICE = 'history-service';

/** What the base run's history says of its state at the reset point (Temporal rebuilds its mutable state the same way). */
interface RebuiltState {
  memo: Record<string, Msg>;
  searchAttributes: Record<string, Msg>;
  activities: Map<number, { attrs: Msg }>;
  timers: Map<string, { startedEventId: number; at: number }>;
  children: number;
  cancelRequested: boolean;
}

function rebuild(exec: Execution, events: Msg[]): RebuiltState {
  const state: RebuiltState = {
    memo: { ...(exec.options.memo?.fields ?? {}) },
    searchAttributes: { ...(exec.options.searchAttributes?.indexedFields ?? {}) },
    activities: new Map(),
    timers: new Map(),
    children: 0,
    cancelRequested: false,
  };
  const closesActivity = [
    'activityTaskCompletedEventAttributes',
    'activityTaskFailedEventAttributes',
    'activityTaskTimedOutEventAttributes',
    'activityTaskCanceledEventAttributes',
  ];
  const closesChild = [
    'childWorkflowExecutionCompletedEventAttributes',
    'childWorkflowExecutionFailedEventAttributes',
    'childWorkflowExecutionCanceledEventAttributes',
    'childWorkflowExecutionTimedOutEventAttributes',
    'childWorkflowExecutionTerminatedEventAttributes',
    'startChildWorkflowExecutionFailedEventAttributes',
  ];
  const children = new Set<number>();
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) state.activities.set(event.eventId, { attrs: scheduled });
    for (const field of closesActivity) if (event[field]) state.activities.delete(Number(event[field].scheduledEventId));
    const timer = event.timerStartedEventAttributes;
    if (timer) {
      const at = (protoToMs(event.eventTime) ?? 0) + (protoToMs(timer.startToFireTimeout) ?? 0);
      state.timers.set(timer.timerId, { startedEventId: event.eventId, at });
    }
    const timerEnded = event.timerFiredEventAttributes ?? event.timerCanceledEventAttributes;
    if (timerEnded) state.timers.delete(timerEnded.timerId);
    if (event.startChildWorkflowExecutionInitiatedEventAttributes) children.add(event.eventId);
    for (const field of closesChild) if (event[field]) children.delete(Number(event[field].initiatedEventId));
    Object.assign(state.searchAttributes, event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {});
    Object.assign(state.memo, event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields ?? {});
    if (event.workflowExecutionCancelRequestedEventAttributes) state.cancelRequested = true;
  }
  state.children = children.size;
  return state;
}

/** Which reapplied event kinds the request leaves out (Temporal maps the deprecated reset_reapply_type onto the exclude list). */
function excludedTypes(req: Msg): Set<number> {
  const excluded = new Set<number>((req.resetReapplyExcludeTypes ?? []).map(Number));
  if (req.resetReapplyType === ResetReapplyType.SIGNAL) excluded.add(ResetReapplyExcludeType.UPDATE);
  if (req.resetReapplyType === ResetReapplyType.NONE) {
    excluded.add(ResetReapplyExcludeType.SIGNAL);
    excluded.add(ResetReapplyExcludeType.UPDATE);
  }
  return excluded;
}

/** The base run's events after the reset point, then those of the runs it continued as, to the current one. */
function eventsAfter(ns: StartsHost, base: Execution, cut: number): Msg[] {
  const events = base.history.events.slice(cut);
  for (let next = base.nextRunId ? ns.find(base.workflowId, base.nextRunId) : undefined; next; ) {
    events.push(...next.history.events);
    next = next.nextRunId ? ns.find(next.workflowId, next.nextRunId) : undefined;
  }
  return events;
}

const resetRequests = new WeakMap<StartsHost, Map<string, string>>();

export function resetWorkflowExecution(ns: StartsHost, req: Msg): Msg {
  const base = ns.get(req.workflowExecution);
  const requestId: string = req.requestId ?? '';
  const seen = resetRequests.get(ns) ?? new Map<string, string>();
  resetRequests.set(ns, seen);
  // A retried request (same request id) answers with the run it made.
  const again = requestId ? seen.get(`${base.workflowId}/${requestId}`) : undefined;
  if (again) return { runId: again };

  const finishEventId = Number(req.workflowTaskFinishEventId ?? 0);
  const cut = finishEventId - 1;
  const events = base.history.events;
  const point = events[cut - 1];
  const pointIsTask = point && (point.workflowTaskScheduledEventAttributes || point.workflowTaskStartedEventAttributes);
  if (finishEventId <= 1 || cut > events.length || !pointIsTask) {
    throw invalidArgument(
      `Can only reset workflow to event ID in range [WorkflowTaskScheduled +1, WorkflowTaskStarted + 1]: ${finishEventId}`,
    );
  }
  const state = rebuild(base, events.slice(0, cut));
  if (state.children > 0) throw invalidArgument('WorkflowResetter encountered pending child workflows.');

  const now = ns.clock.now();
  const reason: string = req.reason ?? '';
  const runId = randomUUID();
  const reapply = eventsAfter(ns, base, cut);
  const current = ns.current(base.workflowId);
  base.resetRunId = runId;
  base.touch();
  if (current?.isOpen) current.close(Status.TERMINATED, 'workflowExecutionTerminatedEventAttributes', { reason, identity: RESETTER });

  const o = base.options;
  const runTimeoutAt = o.runTimeoutMs ? Math.min(now + o.runTimeoutMs, o.expirationTime ?? Infinity) : o.expirationTime;
  const activities: ActivitySnapshot[] = [...state.activities].map(([scheduledEventId, { attrs }]) => ({
    // Not started as far as history tells (started attempts are written only with their outcome): scheduled again now.
    scheduledEventId,
    attrs,
    state: 'scheduled',
    attempt: 1,
    scheduledTime: now,
    currentAttemptScheduledTime: now,
    startedIdentity: '',
    startedRequestId: '',
    cancelRequested: false,
    cancelRequestedEventId: 0,
  }));
  const snapshot: ExecutionSnapshot = {
    status: Status.RUNNING,
    startTime: now,
    memo: state.memo,
    searchAttributes: state.searchAttributes,
    requestIds: requestId ? [requestId] : [],
    cancelRequested: state.cancelRequested,
    children: [],
    timers: [...state.timers].map(([timerId, t]) => ({ timerId, ...t })),
    activities,
    updates: [],
    buffered: [],
    previousStartedEventId: 0,
    stickyTimeoutMs: DEFAULT_STICKY_TIMEOUT_MS,
    ...(runTimeoutAt !== undefined ? { runTimeoutAt } : {}),
    resetTime: now,
  };
  const exec = new Execution(ns, { ...o, runId, ...(requestId ? { requestId } : {}) }, { state: snapshot, events: events.slice(0, cut) });
  ns.add(exec);
  exec.touch();

  // The workflow task at the reset point fails with RESET_WORKFLOW (started first if it was only scheduled).
  let scheduledEventId = Number(point.eventId);
  let startedEventId: number;
  if (point.workflowTaskStartedEventAttributes) {
    scheduledEventId = Number(point.workflowTaskStartedEventAttributes.scheduledEventId);
    startedEventId = Number(point.eventId);
  } else {
    startedEventId = exec.append('workflowTaskStartedEventAttributes', {
      scheduledEventId,
      identity: HISTORY_SERVICE,
      requestId: randomUUID(),
    }).eventId;
  }
  exec.append('workflowTaskFailedEventAttributes', {
    scheduledEventId,
    startedEventId,
    cause: WorkflowTaskFailedCause.RESET_WORKFLOW,
    failure: { message: reason, resetWorkflowFailureInfo: {} },
    identity: HISTORY_SERVICE,
    baseRunId: base.runId,
    newRunId: runId,
    forkEventVersion: 0,
  });
  reapplyEvents(exec, reapply, excludedTypes(req));
  exec.resume(snapshot);
  exec.ensureWorkflowTask();
  if (requestId) seen.set(`${base.workflowId}/${requestId}`, runId);
  return { runId };
}

/** Signals as signals; updates (admitted, or accepted with their request) admitted again with an UpdateAdmitted event. */
function reapplyEvents(exec: Execution, events: Msg[], excluded: Set<number>): void {
  for (const event of events) {
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal && !excluded.has(ResetReapplyExcludeType.SIGNAL)) {
      exec.append('workflowExecutionSignaledEventAttributes', {
        signalName: signal.signalName,
        input: signal.input,
        identity: signal.identity,
        header: signal.header,
      });
    }
    if (excluded.has(ResetReapplyExcludeType.UPDATE)) continue;
    const request =
      event.workflowExecutionUpdateAdmittedEventAttributes?.request ??
      event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    if (request && !exec.updates.has(request.meta?.updateId)) {
      // As Temporal's resetter: an UpdateAdmitted event carries the request, so workers (replaying
      // ones too) take the update from history rather than from a message.
      const admitted = exec.append('workflowExecutionUpdateAdmittedEventAttributes', {
        request,
        origin: UpdateAdmittedEventOrigin.REAPPLY,
      });
      exec.updates.admit(request, admitted.eventId);
    }
  }
}
