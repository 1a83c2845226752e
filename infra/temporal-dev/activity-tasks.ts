// Activity state machine for one scheduled activity: dispatch, attempts, retries with backoff,
// the four timeouts, heartbeats and cancellation. Like Temporal, ActivityTaskStarted is written
// only when the activity reaches a final outcome, so retries leave no trace in history.
import type { Deadline } from './clock.ts';
import { PendingActivityState, RetryState, TimeoutType } from './enums.ts';
import { notFound } from './errors.ts';
import type { Msg } from './proto.ts';
import { decideRetry } from './retry.ts';
import { mergePriority, priorityKey } from './task-queues.ts';
import { msToProto, protoToMs } from './time.ts';
import { encodeToken, type TaskToken } from './tokens.ts';
import type { Execution } from './workflow-execution.ts';

type State = 'scheduled' | 'started' | 'backoff' | 'closed';

/** A pending activity as persistence.ts stores it, inside its run's state. */
export interface ActivitySnapshot {
  scheduledEventId: number;
  attrs: Msg;
  state: State;
  attempt: number;
  scheduledTime: number;
  currentAttemptScheduledTime: number;
  startedTime?: number;
  startedIdentity: string;
  startedRequestId: string;
  heartbeatDetails?: Msg;
  lastHeartbeatTime?: number;
  lastFailure?: Msg;
  cancelRequested: boolean;
  cancelRequestedEventId: number;
  retryAt?: number;
}

const TIMEOUT_NAMES = new Map<number, string>([
  [TimeoutType.START_TO_CLOSE, 'StartToClose'],
  [TimeoutType.SCHEDULE_TO_START, 'ScheduleToStart'],
  [TimeoutType.SCHEDULE_TO_CLOSE, 'ScheduleToClose'],
  [TimeoutType.HEARTBEAT, 'Heartbeat'],
]);

export class PendingActivity {
  readonly exec: Execution;
  readonly scheduledEventId: number;
  /** The ActivityTaskScheduled attributes, with Temporal's defaults already applied. */
  readonly attrs: Msg;
  state: State = 'scheduled';
  attempt = 1;
  readonly scheduledTime: number;
  currentAttemptScheduledTime: number;
  startedTime: number | undefined;
  startedIdentity = '';
  private startedRequestId = '';
  heartbeatDetails: Msg | undefined;
  lastHeartbeatTime: number | undefined;
  lastFailure: Msg | undefined;
  cancelRequested = false;
  private cancelRequestedEventId = 0;
  /** When the next attempt is dispatched, while in backoff. */
  private retryAt: number | undefined;
  private readonly expiresAt: number | undefined;
  private closeDeadline: Deadline | undefined;
  private attemptDeadlines: Deadline[] = [];
  private heartbeatDeadline: Deadline | undefined;

  constructor(exec: Execution, scheduledEventId: number, attrs: Msg, scheduledTime = exec.ns.server.clock.now()) {
    this.exec = exec;
    this.scheduledEventId = scheduledEventId;
    this.attrs = attrs;
    const clock = exec.ns.server.clock;
    this.scheduledTime = scheduledTime;
    this.currentAttemptScheduledTime = this.scheduledTime;
    const scheduleToClose = protoToMs(attrs.scheduleToCloseTimeout);
    if (scheduleToClose) {
      this.expiresAt = this.scheduledTime + scheduleToClose;
      this.closeDeadline = clock.schedule(this.expiresAt, () => this.timeOut(TimeoutType.SCHEDULE_TO_CLOSE));
    }
  }

  /**
   * Takes back a persisted activity and re-arms its deadlines. An attempt that was running on a
   * worker is queued again as the same attempt: the server, not the activity, lost it.
   */
  static restore(exec: Execution, s: ActivitySnapshot): PendingActivity {
    const a = new PendingActivity(exec, s.scheduledEventId, s.attrs, s.scheduledTime);
    a.attempt = s.attempt;
    a.startedTime = s.startedTime;
    a.startedIdentity = s.startedIdentity;
    a.startedRequestId = s.startedRequestId;
    a.heartbeatDetails = s.heartbeatDetails;
    a.lastHeartbeatTime = s.lastHeartbeatTime;
    a.lastFailure = s.lastFailure;
    a.cancelRequested = s.cancelRequested;
    a.cancelRequestedEventId = s.cancelRequestedEventId;
    if (s.state === 'backoff') a.backoffUntil(s.retryAt!);
    else if (s.state === 'scheduled') a.dispatch(s.currentAttemptScheduledTime);
    else a.dispatch();
    return a;
  }

  snapshot(): ActivitySnapshot {
    return {
      scheduledEventId: this.scheduledEventId,
      attrs: this.attrs,
      state: this.state,
      attempt: this.attempt,
      scheduledTime: this.scheduledTime,
      currentAttemptScheduledTime: this.currentAttemptScheduledTime,
      startedTime: this.startedTime,
      startedIdentity: this.startedIdentity,
      startedRequestId: this.startedRequestId,
      heartbeatDetails: this.heartbeatDetails,
      lastHeartbeatTime: this.lastHeartbeatTime,
      lastFailure: this.lastFailure,
      cancelRequested: this.cancelRequested,
      cancelRequestedEventId: this.cancelRequestedEventId,
      retryAt: this.retryAt,
    };
  }

  get activityId(): string {
    return this.attrs.activityId;
  }

  /** Queued or executing: the server is waiting on a worker, so time must not skip. */
  get isRunnable(): boolean {
    return this.state === 'scheduled' || this.state === 'started';
  }

  get pendingState(): number {
    if (this.cancelRequested) return PendingActivityState.CANCEL_REQUESTED;
    return this.state === 'started' ? PendingActivityState.STARTED : PendingActivityState.SCHEDULED;
  }

  /** Queues the current attempt; `scheduledTime` is earlier only when a restart requeues it. */
  dispatch(scheduledTime = this.exec.ns.server.clock.now()): void {
    const clock = this.exec.ns.server.clock;
    this.state = 'scheduled';
    this.retryAt = undefined;
    this.currentAttemptScheduledTime = scheduledTime;
    this.exec.touch();
    const attempt = this.attempt;
    this.exec.ns.server.activityTasks.add(this.exec.ns.queueKey(this.attrs.taskQueue.name), {
      start: (identity, requestId) =>
        this.state === 'scheduled' && this.attempt === attempt ? this.start(identity, requestId) : undefined,
      priorityKey: priorityKey(this.priority),
    });
    const scheduleToStart = protoToMs(this.attrs.scheduleToStartTimeout);
    if (scheduleToStart) {
      this.attemptDeadlines.push(clock.schedule(scheduledTime + scheduleToStart, () => this.timeOut(TimeoutType.SCHEDULE_TO_START)));
    }
  }

  private start(identity: string, requestId: string): Msg {
    const clock = this.exec.ns.server.clock;
    this.clearAttemptDeadlines();
    this.state = 'started';
    this.startedTime = clock.now();
    this.startedIdentity = identity;
    this.startedRequestId = requestId;
    this.exec.touch();
    const startToClose = protoToMs(this.attrs.startToCloseTimeout);
    if (startToClose) this.attemptDeadlines.push(clock.after(startToClose, () => this.timeOut(TimeoutType.START_TO_CLOSE)));
    this.armHeartbeatTimeout();
    const a = this.attrs;
    return {
      taskToken: encodeToken(this.exec.token('at', this.scheduledEventId, this.attempt)),
      workflowNamespace: this.exec.ns.name,
      workflowType: this.exec.options.workflowType,
      workflowExecution: this.exec.ref,
      activityType: a.activityType,
      activityId: a.activityId,
      header: a.header,
      input: a.input,
      heartbeatDetails: this.heartbeatDetails,
      scheduledTime: msToProto(this.scheduledTime),
      currentAttemptScheduledTime: msToProto(this.currentAttemptScheduledTime),
      startedTime: msToProto(this.startedTime),
      attempt: this.attempt,
      scheduleToCloseTimeout: a.scheduleToCloseTimeout,
      startToCloseTimeout: a.startToCloseTimeout,
      heartbeatTimeout: a.heartbeatTimeout,
      retryPolicy: a.retryPolicy,
      priority: this.priority,
    };
  }

  /** The activity's own priority over its workflow's, as Temporal merges them for dispatch. */
  private get priority(): Msg | undefined {
    return mergePriority(this.exec.options.priority, this.attrs.priority);
  }

  private armHeartbeatTimeout(): void {
    this.heartbeatDeadline?.cancel();
    const heartbeat = protoToMs(this.attrs.heartbeatTimeout);
    if (heartbeat) this.heartbeatDeadline = this.exec.ns.server.clock.after(heartbeat, () => this.timeOut(TimeoutType.HEARTBEAT));
  }

  private clearAttemptDeadlines(): void {
    for (const d of this.attemptDeadlines) d.cancel();
    this.attemptDeadlines = [];
    this.heartbeatDeadline?.cancel();
    this.heartbeatDeadline = undefined;
  }

  /** Throws NOT_FOUND unless `token` names the attempt currently executing. */
  checkToken(token: TaskToken): void {
    if (this.state !== 'started' || token.attempt !== this.attempt) throw notFound('Activity task not found.');
  }

  heartbeat(details: Msg | undefined): Msg {
    if (details) this.heartbeatDetails = details;
    this.lastHeartbeatTime = this.exec.ns.server.clock.now();
    this.exec.touch();
    this.armHeartbeatTimeout();
    return { cancelRequested: this.cancelRequested };
  }

  complete(result: Msg | undefined, identity: string): void {
    this.finish('activityTaskCompletedEventAttributes', { result, identity });
  }

  fail(failure: Msg | undefined, lastHeartbeatDetails: Msg | undefined, identity: string): void {
    if (lastHeartbeatDetails) this.heartbeatDetails = lastHeartbeatDetails;
    const decision = this.cancelRequested
      ? ({ retry: false, retryState: RetryState.CANCEL_REQUESTED } as const)
      : decideRetry(this.attrs.retryPolicy, this.attempt, failure, this.exec.ns.server.clock.now(), this.expiresAt);
    if (decision.retry) {
      this.lastFailure = failure;
      this.backoff(decision.delayMs);
      return;
    }
    this.finish('activityTaskFailedEventAttributes', { failure, identity, retryState: decision.retryState });
  }

  canceled(details: Msg | undefined, identity: string): void {
    this.finish('activityTaskCanceledEventAttributes', {
      details,
      identity,
      latestCancelRequestedEventId: this.cancelRequestedEventId,
    });
  }

  /**
   * Handles a RequestCancelActivityTask command. An activity not yet running is canceled at once
   * (returns true: the workflow needs a task to see it); a running one learns via heartbeat.
   */
  requestCancel(cancelRequestedEventId: number): boolean {
    this.cancelRequested = true;
    this.cancelRequestedEventId = cancelRequestedEventId;
    if (this.state === 'started') return false;
    this.close();
    this.exec.append('activityTaskCanceledEventAttributes', {
      scheduledEventId: this.scheduledEventId,
      startedEventId: 0,
      latestCancelRequestedEventId: cancelRequestedEventId,
    });
    return true;
  }

  private timeOut(type: number): void {
    if (this.state === 'closed') return;
    const failure: Msg = {
      message: `activity ${TIMEOUT_NAMES.get(type)} timeout`,
      source: 'Server',
      timeoutFailureInfo: { timeoutType: type, lastHeartbeatDetails: this.heartbeatDetails },
    };
    if (type === TimeoutType.START_TO_CLOSE || type === TimeoutType.HEARTBEAT) {
      const decision = decideRetry(this.attrs.retryPolicy, this.attempt, failure, this.exec.ns.server.clock.now(), this.expiresAt);
      if (decision.retry) {
        this.lastFailure = failure;
        this.backoff(decision.delayMs);
        return;
      }
      this.finish('activityTaskTimedOutEventAttributes', { failure, retryState: decision.retryState });
      return;
    }
    // Schedule-to-start and schedule-to-close timeouts are final.
    if (type === TimeoutType.SCHEDULE_TO_CLOSE && this.lastFailure) failure.cause = this.lastFailure;
    const retryState = type === TimeoutType.SCHEDULE_TO_CLOSE ? RetryState.TIMEOUT : RetryState.NON_RETRYABLE_FAILURE;
    this.finish('activityTaskTimedOutEventAttributes', { failure, retryState });
  }

  private backoff(delayMs: number): void {
    this.clearAttemptDeadlines();
    this.attempt++;
    this.backoffUntil(this.exec.ns.server.clock.now() + delayMs);
  }

  private backoffUntil(at: number): void {
    this.state = 'backoff';
    this.retryAt = at;
    this.exec.touch();
    this.attemptDeadlines.push(this.exec.ns.server.clock.schedule(at, () => this.dispatch()));
  }

  /** Writes ActivityTaskStarted (if the last attempt started) and the outcome event. */
  private finish(attrField: string, attrs: Msg): void {
    const wasStarted = this.state === 'started';
    this.close();
    this.exec.recordEvent({
      attrField,
      attrs: { ...attrs, scheduledEventId: this.scheduledEventId, startedEventId: 0 },
      activityStarted: wasStarted
        ? {
            scheduledEventId: this.scheduledEventId,
            identity: this.startedIdentity,
            requestId: this.startedRequestId,
            attempt: this.attempt,
            lastFailure: this.lastFailure,
          }
        : undefined,
    });
  }

  private close(): void {
    this.state = 'closed';
    this.clearAttemptDeadlines();
    this.closeDeadline?.cancel();
    this.exec.activities.delete(this.scheduledEventId);
    this.exec.touch();
  }

  /** The workflow closed: drop all timers; later heartbeats and responses get NOT_FOUND. */
  abandon(): void {
    this.state = 'closed';
    this.clearAttemptDeadlines();
    this.closeDeadline?.cancel();
  }
}
