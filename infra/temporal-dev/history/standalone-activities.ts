// Standalone activities (StartActivityExecution and its family, the SDK's `client.activity`): an
// activity run by id on a task queue without a workflow. Each run owns one PendingActivity
// (activity-tasks.ts), so dispatch, attempts, retries, timeouts, heartbeats and cancellation are
// those of workflow activities; its outcome closes the run, which the caller reads by polling.
// Id reuse and conflict policies and request-id dedupe as Temporal's (chasm/lib/activity).
// One `StandaloneActivities` per namespace (`ns.activityExecutions`); its state is plain JSON in
// the namespace's snapshot, so the state file keeps it.
import { randomUUID } from 'node:crypto';
import { status as grpcStatus } from '@grpc/grpc-js';
import {
  ActivityExecutionStatus as ActivityStatus,
  ActivityIdConflictPolicy as Conflict,
  IndexedValueType,
  ActivityIdReusePolicy as Reuse,
  TaskQueueKind,
  TaskQueueType,
} from '../common/enums.ts';
import { failedPrecondition, invalidArgument, notFound, ServiceError } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { searchAttributesError } from '../common/search-attributes.ts';
import { msToProto, protoToMs } from '../common/time.ts';
import type { TaskToken } from '../common/tokens.ts';
import { Waiters } from '../common/waiters.ts';
import { pageOf, payloadValue, queryRows, type Value, type VisibilityRow } from '../visibility/query.ts';
import { normalizeActivityOptions, optionsUpdatePaths, scheduledOptions, updateOptions } from './activity-control.ts';
import { type ActivityOwner, type ActivitySnapshot, PendingActivity } from './activity-tasks.ts';
import type { RecordedEvent } from './event-history.ts';
import type { RunHost } from './workflow-execution.ts';

const STATUS_NAMES = new Map<number, string>([
  [ActivityStatus.RUNNING, 'Running'],
  [ActivityStatus.COMPLETED, 'Completed'],
  [ActivityStatus.FAILED, 'Failed'],
  [ActivityStatus.CANCELED, 'Canceled'],
  [ActivityStatus.TERMINATED, 'Terminated'],
  [ActivityStatus.TIMED_OUT, 'TimedOut'],
  [ActivityStatus.PAUSED, 'Paused'],
]);

/** The one PendingActivity of a run is kept under this "scheduled event id". */
const ACTIVITY_KEY = 1;

/** Attributes that list and count queries may name besides the workflow ones. */
const ACTIVITY_ATTRIBUTES: Record<string, number> = { ActivityId: IndexedValueType.KEYWORD, ActivityType: IndexedValueType.KEYWORD };

/** What standalone activities need of their namespace (namespace/registry.ts implements it). */
export interface ActivityExecutionsHost
  extends Pick<RunHost, 'name' | 'bootId' | 'clock' | 'dynamicConfig' | 'searchAttributeTypes' | 'activityTasks' | 'deployments'> {
  /** Marks the namespace's state (standalone activities are part of it) as changed. */
  touch(): void;
}

export interface ActivityExecutionSnapshot {
  activityId: string;
  runId: string;
  /** The ActivityTaskScheduled-like attributes the PendingActivity runs with. */
  attrs: Msg;
  searchAttributes?: Msg;
  userMetadata?: Msg;
  startDelayMs?: number;
  status: number;
  startTime: number;
  closeTime?: number;
  requestId: string;
  outcome?: Msg;
  cancel?: { requestId: string; reason: string; identity: string };
  terminateRequestId?: string;
  activity?: ActivitySnapshot;
  /** While a start delay runs: when the first attempt is dispatched. */
  dispatchAt?: number;
  stateTransitionCount: number;
}

export interface StandaloneActivitiesState {
  executions: ActivityExecutionSnapshot[];
}

class ActivityExecution implements ActivityOwner {
  readonly ns: ActivityExecutionsHost;
  readonly activities = new Map<number, PendingActivity>();
  readonly s: ActivityExecutionSnapshot;
  private readonly waiters = new Waiters();
  /** The run's activity, also once closed (PendingActivity drops itself from `activities` then). */
  private pending: PendingActivity | undefined;

  constructor(ns: ActivityExecutionsHost, s: ActivityExecutionSnapshot) {
    this.ns = ns;
    this.s = s;
  }

  get isOpen(): boolean {
    return this.s.status === ActivityStatus.RUNNING;
  }

  /** The status describe and list report: an open run whose activity is paused is PAUSED. */
  get status(): number {
    return this.activity?.pauseInfo ? ActivityStatus.PAUSED : this.s.status;
  }

  /** The activity while the run is open. */
  get activity(): PendingActivity | undefined {
    return this.isOpen ? this.pending : undefined;
  }

  // ---- ActivityOwner ----

  get ownerPriority(): Msg | undefined {
    return undefined;
  }

  touch(): void {
    this.s.stateTransitionCount++;
    this.ns.touch();
  }

  activityQueueKey(taskQueue: string): string {
    return this.ns.deployments.queueKey(taskQueue, this.ns.deployments.route(taskQueue, TaskQueueType.ACTIVITY, this.s.activityId));
  }

  activityToken(_scheduledEventId: number, attempt: number): TaskToken {
    const { bootId } = this.ns;
    return {
      boot: bootId,
      namespace: this.ns.name,
      workflowId: this.s.activityId,
      runId: this.s.runId,
      kind: 'sa',
      id: ACTIVITY_KEY,
      attempt,
    };
  }

  activityTaskOwner(): Msg {
    return { activityRunId: this.s.runId };
  }

  recordEvent(event: RecordedEvent): void {
    const a = event.attrs;
    switch (event.attrField) {
      case 'activityTaskCompletedEventAttributes':
        this.close(ActivityStatus.COMPLETED, { result: a.result ?? { payloads: [] } });
        break;
      case 'activityTaskFailedEventAttributes':
        this.close(ActivityStatus.FAILED, { failure: a.failure, retryState: a.retryState });
        break;
      case 'activityTaskTimedOutEventAttributes':
        this.close(ActivityStatus.TIMED_OUT, { failure: a.failure, retryState: a.retryState });
        break;
      case 'activityTaskCanceledEventAttributes':
        this.close(ActivityStatus.CANCELED, {
          failure: {
            message: this.s.cancel?.reason || 'Activity canceled',
            canceledFailureInfo: { details: a.details, identity: a.identity },
          },
        });
        break;
    }
  }

  append(attrField: string, attrs: Msg): Msg {
    this.recordEvent({ attrField, attrs });
    return {};
  }

  // ---- run ----

  /** Schedules the first attempt, now or after the start delay. */
  begin(): void {
    const a = this.adopt(new PendingActivity(this, ACTIVITY_KEY, this.s.attrs));
    const at = this.s.dispatchAt;
    if (at === undefined) a.dispatch();
    else this.ns.clock.schedule(at, () => this.firstDispatch());
    this.touch();
  }

  private firstDispatch(): void {
    this.s.dispatchAt = undefined;
    if (this.isOpen) this.activity?.dispatch();
    this.touch();
  }

  /** After a restart: the attempt (or the start delay) is armed again, as for workflow activities. */
  resume(): void {
    if (!this.isOpen) return;
    if (this.s.dispatchAt !== undefined) {
      this.adopt(new PendingActivity(this, ACTIVITY_KEY, this.s.attrs, this.s.startTime));
      this.ns.clock.schedule(this.s.dispatchAt, () => this.firstDispatch());
    } else if (this.s.activity) {
      this.adopt(PendingActivity.restore(this, this.s.activity));
    }
  }

  private adopt(a: PendingActivity): PendingActivity {
    this.pending = a;
    this.activities.set(ACTIVITY_KEY, a);
    return a;
  }

  snapshot(): ActivityExecutionSnapshot {
    return structuredClone({ ...this.s, activity: this.pending?.snapshot() ?? this.s.activity });
  }

  close(status: number, outcome: Msg): void {
    if (!this.isOpen) return;
    this.s.status = status;
    this.s.outcome = outcome;
    this.s.closeTime = this.ns.clock.now();
    this.activity?.abandon();
    this.activities.clear();
    this.touch();
    this.waiters.wakeAll();
  }

  /** Resolves when the run closes or after `timeoutMs` (or when `signal` aborts). */
  waitForClose(signal: AbortSignal, timeoutMs: number): Promise<void> {
    return this.isOpen ? this.waiters.wait(signal, timeoutMs) : Promise.resolve();
  }

  info(req: Msg = {}): Msg {
    const s = this.s;
    // What the last attempt did (kept in the snapshot once the run closed and the server restarted).
    const a = this.pending?.snapshot() ?? s.activity;
    // Its options as UpdateActivityExecutionOptions left them.
    const attrs = a?.attrs ?? s.attrs;
    return {
      activityId: s.activityId,
      runId: s.runId,
      activityType: attrs.activityType,
      status: this.status,
      runState: this.activity?.pendingState,
      taskQueue: attrs.taskQueue.name,
      scheduleToCloseTimeout: attrs.scheduleToCloseTimeout,
      scheduleToStartTimeout: attrs.scheduleToStartTimeout,
      startToCloseTimeout: attrs.startToCloseTimeout,
      heartbeatTimeout: attrs.heartbeatTimeout,
      retryPolicy: attrs.retryPolicy,
      heartbeatDetails: req.includeHeartbeatDetails ? a?.heartbeatDetails : undefined,
      lastHeartbeatTime: a?.lastHeartbeatTime === undefined ? undefined : msToProto(a.lastHeartbeatTime),
      lastStartedTime: a?.startedTime === undefined ? undefined : msToProto(a.startedTime),
      attempt: a?.attempt ?? 1,
      executionDuration: s.closeTime === undefined ? undefined : msToProto(s.closeTime - s.startTime),
      scheduleTime: msToProto(s.startTime),
      closeTime: s.closeTime === undefined ? undefined : msToProto(s.closeTime),
      lastFailure: req.includeLastFailure ? a?.lastFailure : undefined,
      lastWorkerIdentity: a?.startedIdentity || undefined,
      priority: attrs.priority,
      stateTransitionCount: s.stateTransitionCount,
      searchAttributes: s.searchAttributes,
      header: attrs.header,
      userMetadata: s.userMetadata,
      canceledReason: s.cancel?.reason,
      startDelay: s.startDelayMs ? msToProto(s.startDelayMs) : undefined,
      executionTime: msToProto(s.startTime + (s.startDelayMs ?? 0)),
    };
  }

  listInfo(): Msg {
    const s = this.s;
    return {
      activityId: s.activityId,
      runId: s.runId,
      activityType: s.attrs.activityType,
      scheduleTime: msToProto(s.startTime),
      closeTime: s.closeTime === undefined ? undefined : msToProto(s.closeTime),
      status: this.status,
      searchAttributes: s.searchAttributes,
      taskQueue: s.attrs.taskQueue.name,
      stateTransitionCount: s.stateTransitionCount,
      executionDuration: s.closeTime === undefined ? undefined : msToProto(s.closeTime - s.startTime),
      executionTime: msToProto(s.startTime + (s.startDelayMs ?? 0)),
    };
  }

  row(): VisibilityRow {
    const s = this.s;
    const value = (field: string): Value => {
      switch (field) {
        case 'ActivityId':
          return s.activityId;
        case 'RunId':
          return s.runId;
        case 'ActivityType':
          return s.attrs.activityType.name;
        case 'ExecutionStatus':
          return STATUS_NAMES.get(this.status) ?? null;
        case 'TaskQueue':
          return s.attrs.taskQueue.name;
        case 'StartTime':
          return s.startTime;
        case 'CloseTime':
          return s.closeTime ?? null;
        case 'ExecutionTime':
          return s.startTime + (s.startDelayMs ?? 0);
        case 'StateTransitionCount':
          return s.stateTransitionCount;
        default:
          return payloadValue(s.searchAttributes?.indexedFields?.[field]);
      }
    };
    return { value, info: () => this.listInfo() };
  }
}

export class StandaloneActivities {
  private readonly ns: ActivityExecutionsHost;
  /** Every run, in start order. */
  private runs: ActivityExecution[] = [];

  constructor(ns: ActivityExecutionsHost) {
    this.ns = ns;
  }

  importState(state: StandaloneActivitiesState): void {
    this.runs = state.executions.map((s) => new ActivityExecution(this.ns, structuredClone(s)));
    for (const run of this.runs) run.resume();
  }

  exportState(): StandaloneActivitiesState {
    return { executions: this.runs.map((r) => r.snapshot()) };
  }

  /** Attempts queued or running (each holds time skipping back). */
  get runnableCount(): number {
    return this.runs.filter((r) => r.isOpen && r.activity?.isRunnable).length;
  }

  private current(activityId: string): ActivityExecution | undefined {
    for (let i = this.runs.length - 1; i >= 0; i--) if (this.runs[i]!.s.activityId === activityId) return this.runs[i];
    return undefined;
  }

  private find(req: Msg): ActivityExecution {
    const activityId: string | undefined = req.activityId;
    if (!activityId) throw invalidArgument('activity ID is required');
    const run = this.byId(activityId, req.runId);
    if (!run) throw notFound(`activity execution not found for activity ID "${activityId}" and run ID "${req.runId ?? ''}"`);
    return run;
  }

  /** The run of `activityId` (the newest when `runId` is empty), if any: for the by-id activity-task RPCs. */
  byId(activityId: string, runId?: string): ActivityExecution | undefined {
    return runId ? this.runs.find((r) => r.s.activityId === activityId && r.s.runId === runId) : this.current(activityId);
  }

  /** The pending activity a task token (kind 'sa') names, for the activity-task RPCs. */
  activityForToken(token: TaskToken): PendingActivity | undefined {
    const run = this.runs.find((r) => r.s.activityId === token.workflowId && r.s.runId === token.runId);
    return run?.isOpen ? run.activity : undefined;
  }

  start(req: Msg): Msg {
    const activityId: string = req.activityId ?? '';
    if (!activityId) throw invalidArgument('activityId is not set');
    if (!req.activityType?.name) throw invalidArgument('activityType is not set');
    if (!req.taskQueue?.name) throw invalidArgument('TaskQueue is not set on request.');
    const invalidAttributes = searchAttributesError(this.ns, req.searchAttributes?.indexedFields);
    if (invalidAttributes) throw invalidArgument(invalidAttributes);
    const reuse: number = req.idReusePolicy || Reuse.ALLOW_DUPLICATE;
    const conflict: number = req.idConflictPolicy || Conflict.FAIL;
    if (!Object.values(Reuse).includes(reuse)) throw invalidArgument(`unsupported ID reuse policy: ${reuse}`);
    if (!Object.values(Conflict).includes(conflict)) throw invalidArgument(`unsupported ID conflict policy: ${conflict}`);
    let options: Msg;
    try {
      options = normalizeActivityOptions({
        scheduleToCloseTimeout: req.scheduleToCloseTimeout,
        scheduleToStartTimeout: req.scheduleToStartTimeout,
        startToCloseTimeout: req.startToCloseTimeout,
        heartbeatTimeout: req.heartbeatTimeout,
        retryPolicy: req.retryPolicy,
      });
    } catch (err) {
      // Temporal words it with the activity's id and type here.
      if (err instanceof ServiceError && /StartToCloseTimeout or ScheduleToCloseTimeout/.test(err.message)) {
        throw invalidArgument(
          `a valid StartToCloseTimeout or ScheduleToCloseTimeout must be set on the activity. ActivityId=${activityId} ActivityType=${req.activityType.name}`,
        );
      }
      throw err;
    }
    const requestId: string = req.requestId || randomUUID();
    const current = this.current(activityId);
    if (current) {
      // A retried request answers with the run it created.
      if (current.s.requestId === requestId) return { runId: current.s.runId, started: true };
      if (current.isOpen) {
        if (conflict === Conflict.USE_EXISTING) return { runId: current.s.runId, started: false };
        throw alreadyStarted(current);
      }
      const failedOnly = current.s.status !== ActivityStatus.COMPLETED;
      if (reuse === Reuse.REJECT_DUPLICATE || (reuse === Reuse.ALLOW_DUPLICATE_FAILED_ONLY && !failedOnly)) throw alreadyStarted(current);
    }
    const now = this.ns.clock.now();
    const startDelayMs = protoToMs(req.startDelay);
    const run = new ActivityExecution(this.ns, {
      activityId,
      runId: randomUUID(),
      attrs: {
        activityId,
        activityType: req.activityType,
        taskQueue: { name: req.taskQueue.name, kind: TaskQueueKind.NORMAL },
        header: req.header,
        input: req.input,
        scheduleToCloseTimeout: options.scheduleToCloseTimeout,
        scheduleToStartTimeout: options.scheduleToStartTimeout,
        startToCloseTimeout: options.startToCloseTimeout,
        heartbeatTimeout: options.heartbeatTimeout,
        retryPolicy: options.retryPolicy,
        priority: req.priority ?? undefined,
      },
      searchAttributes: req.searchAttributes ?? undefined,
      userMetadata: req.userMetadata ?? undefined,
      startDelayMs,
      dispatchAt: startDelayMs ? now + startDelayMs : undefined,
      status: ActivityStatus.RUNNING,
      startTime: now,
      requestId,
      stateTransitionCount: 0,
    });
    this.runs.push(run);
    run.begin();
    return { runId: run.s.runId, started: true };
  }

  describe(req: Msg): Msg {
    const run = this.find(req);
    const s = run.s;
    return {
      runId: s.runId,
      info: run.info(req),
      input: req.includeInput ? s.attrs.input : undefined,
      outcome: req.includeOutcome ? s.outcome : undefined,
    };
  }

  /** Waits (long poll) for the run's outcome; an empty answer means "ask again". */
  async poll(req: Msg, signal: AbortSignal): Promise<Msg> {
    const run = this.find(req);
    await run.waitForClose(signal, this.ns.dynamicConfig.get('history.longPollExpirationInterval'));
    return { runId: run.s.runId, outcome: run.s.outcome };
  }

  list(req: Msg): Msg {
    const rows = queryRows(this.ns, this.newestFirst(), req.query ?? '', ACTIVITY_ATTRIBUTES);
    const { page, nextPageToken } = pageOf(rows, req.nextPageToken, req.pageSize);
    return { executions: page.map((r) => r.info()), nextPageToken };
  }

  count(req: Msg): Msg {
    return { count: queryRows(this.ns, this.newestFirst(), req.query ?? '', ACTIVITY_ATTRIBUTES).length };
  }

  private newestFirst(): VisibilityRow[] {
    return [...this.runs].reverse().map((r) => r.row());
  }

  requestCancel(req: Msg): Msg {
    const run = this.find(req);
    const requestId: string = req.requestId ?? '';
    if (requestId && run.s.cancel?.requestId === requestId) return {};
    if (!run.isOpen) throw failedPrecondition(`activity is in terminal state ${statusName(run.s.status)}`);
    if (run.s.cancel) throw failedPrecondition(`cancellation already requested with request ID ${run.s.cancel.requestId}`);
    run.s.cancel = { requestId, reason: req.reason ?? '', identity: req.identity ?? '' };
    run.touch();
    // Not running: canceled at once; running: the worker learns of it from its next heartbeat.
    run.activity?.requestCancel(0);
    return {};
  }

  terminate(req: Msg): Msg {
    const run = this.find(req);
    const requestId: string = req.requestId ?? '';
    if (run.s.status === ActivityStatus.TERMINATED) {
      if (run.s.terminateRequestId !== requestId)
        throw failedPrecondition(`already terminated with request ID ${run.s.terminateRequestId}`);
      return {};
    }
    if (!run.isOpen) throw failedPrecondition(`activity is in terminal state ${statusName(run.s.status)}`);
    run.s.terminateRequestId = requestId;
    run.close(ActivityStatus.TERMINATED, { failure: { message: req.reason || 'Activity terminated', terminatedFailureInfo: {} } });
    return {};
  }

  pause(req: Msg): Msg {
    const { activity } = this.openActivity(req);
    activity.pause({
      pauseTime: this.ns.clock.now(),
      identity: req.identity ?? '',
      reason: req.reason ?? '',
      requestId: req.requestId ?? '',
    });
    return {};
  }

  unpause(req: Msg): Msg {
    const { run, activity } = this.openActivity(req);
    if (!activity.pauseInfo) throw failedPrecondition(`activity is in non-unpausable state ${statusName(run.status)}`);
    activity.unpause(false, false, protoToMs(req.jitter) ?? 0);
    return {};
  }

  reset(req: Msg): Msg {
    const { run, activity } = this.openActivity(req);
    if (run.s.cancel) throw failedPrecondition('cannot reset an activity with a pending cancellation');
    const original = req.restoreOriginalOptions ? scheduledOptions(run.s.attrs) : undefined;
    activity.resetAttempts(Boolean(req.resetHeartbeat), Boolean(req.keepPaused), protoToMs(req.jitter) ?? 0, original);
    return {};
  }

  updateOptions(req: Msg): Msg {
    const paths = optionsUpdatePaths(req);
    const { run, activity } = this.openActivity(req);
    return updateOptions([activity], req, paths, () => scheduledOptions(run.s.attrs));
  }

  /** The open run's activity for the operator calls; a closed run is FAILED_PRECONDITION as in Temporal. */
  private openActivity(req: Msg): { run: ActivityExecution; activity: PendingActivity } {
    const run = this.find(req);
    const activity = run.activity;
    if (!activity) throw failedPrecondition(`activity is in terminal state ${statusName(run.s.status)}`);
    return { run, activity };
  }

  delete(req: Msg): Msg {
    const run = this.find(req);
    run.close(ActivityStatus.TERMINATED, { failure: { message: 'Activity deleted', terminatedFailureInfo: {} } });
    this.runs.splice(this.runs.indexOf(run), 1);
    this.ns.touch();
    return {};
  }
}

function statusName(status: number): string {
  return `ACTIVITY_EXECUTION_STATUS_${(STATUS_NAMES.get(status) ?? 'Unspecified').replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

function alreadyStarted(run: ActivityExecution): ServiceError {
  return new ServiceError(grpcStatus.ALREADY_EXISTS, 'activity execution already started', {
    typeName: 'temporal.api.errordetails.v1.ActivityExecutionAlreadyStartedFailure',
    value: { startRequestId: run.s.requestId, runId: run.s.runId },
  });
}
