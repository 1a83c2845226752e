// Activity state machine for one scheduled activity: dispatch, attempts, retries with backoff,
// the four timeouts, heartbeats, cancellation, and the operator's pause, unpause, reset and option
// updates. Like Temporal, ActivityTaskStarted is written only when the activity reaches a final
// outcome, so retries leave no trace in history.
import { randomUUID } from 'node:crypto';
import type { Deadline, VirtualClock } from '../common/clock.ts';
import { PendingActivityState, RetryState, TimeoutType } from '../common/enums.ts';
import { failedPrecondition, invalidArgument, notFound } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { decideRetry, isRetryableFailure } from '../common/retry.ts';
import { msToProto, protoToMs } from '../common/time.ts';
import { encodeToken, type TaskToken } from '../common/tokens.ts';
import { mergePriority, priorityKey, type TaskQueues } from '../matching/task-queues.ts';
import type { RecordedEvent } from './event-history.ts';

/** What activities use of their namespace: its clock and the activity task queues. */
export interface ActivityHost {
  readonly clock: VirtualClock;
  readonly activityTasks: TaskQueues<Msg>;
}

/** What an activity needs of what owns it: a workflow run (workflow-execution.ts) or a standalone activity execution. */
export interface ActivityOwner {
  readonly ns: ActivityHost;
  /** The owner's pending activities by scheduled event id (one, id 1, for a standalone activity). */
  readonly activities: Map<number, PendingActivity>;
  /** Priority the activity inherits each unset field from. */
  readonly ownerPriority: Msg | undefined;
  /** Marks the owner's state as changed (persistence). */
  touch(): void;
  /** The task-queue key an attempt on `taskQueue` is queued under (worker versioning splits queues). */
  activityQueueKey(taskQueue: string): string;
  activityToken(scheduledEventId: number, attempt: number): TaskToken;
  /** The poll response's fields naming the owner (workflow execution, or the activity's run id). */
  activityTaskOwner(): Msg;
  /** The activity's outcome (ActivityTaskCompleted, Failed, TimedOut or Canceled attributes). */
  recordEvent(event: RecordedEvent): void;
  /** An outcome written at once (a cancellation before any attempt started). */
  append(attrField: string, attrs: Msg): Msg;
}

type State = 'scheduled' | 'started' | 'backoff' | 'closed';

/** Temporal's answer for a response or heartbeat whose attempt is not the one running. */
export const ACTIVITY_TASK_NOT_FOUND = 'invalid activityID or activity already timed out or invoking workflow is completed';

/** Who paused the activity (PauseActivity) and when; `requestId` makes a retried pause a no-op. */
export interface PauseInfo {
  pauseTime: number;
  identity: string;
  reason: string;
  requestId: string;
}

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
  /** Set while paused. */
  pause?: PauseInfo;
  /** ResetActivity while an attempt ran: its heartbeats answer activityReset until the next attempt. */
  reset?: boolean;
  /** ...and that next attempt starts without heartbeat details. */
  resetHeartbeat?: boolean;
}

const TIMEOUT_NAMES = new Map<number, string>([
  [TimeoutType.START_TO_CLOSE, 'StartToClose'],
  [TimeoutType.SCHEDULE_TO_START, 'ScheduleToStart'],
  [TimeoutType.SCHEDULE_TO_CLOSE, 'ScheduleToClose'],
  [TimeoutType.HEARTBEAT, 'Heartbeat'],
]);

export class PendingActivity {
  readonly owner: ActivityOwner;
  readonly scheduledEventId: number;
  /** The ActivityTaskScheduled attributes, with Temporal's defaults applied and UpdateActivityOptions' changes. */
  attrs: Msg;
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
  /** Set while paused: nothing is dispatched and no timeout runs (as in Temporal). */
  pauseInfo: PauseInfo | undefined;
  private reset = false;
  private resetHeartbeat = false;
  /** Bumped by every dispatch, pause and option change, so a task queued before is skipped. */
  private stamp = 0;
  private closeDeadline: Deadline | undefined;
  private attemptDeadlines: Deadline[] = [];
  private heartbeatDeadline: Deadline | undefined;
  /** The task-queue key of the last dispatch (worker versioning splits a queue by version). */
  private queuedKey: string | undefined;

  constructor(owner: ActivityOwner, scheduledEventId: number, attrs: Msg, scheduledTime = owner.ns.clock.now()) {
    this.owner = owner;
    this.scheduledEventId = scheduledEventId;
    this.attrs = attrs;
    this.scheduledTime = scheduledTime;
    this.currentAttemptScheduledTime = this.scheduledTime;
    this.armCloseDeadline();
  }

  private get expiresAt(): number | undefined {
    const scheduleToClose = protoToMs(this.attrs.scheduleToCloseTimeout);
    return scheduleToClose ? this.scheduledTime + scheduleToClose : undefined;
  }

  private armCloseDeadline(): void {
    this.closeDeadline?.cancel();
    const at = this.expiresAt;
    this.closeDeadline = at === undefined ? undefined : this.owner.ns.clock.schedule(at, () => this.timeOut(TimeoutType.SCHEDULE_TO_CLOSE));
  }

  /**
   * Takes back a persisted activity and re-arms its deadlines. An attempt that was running on a
   * worker is queued again as the same attempt: the server, not the activity, lost it.
   */
  static restore(owner: ActivityOwner, s: ActivitySnapshot): PendingActivity {
    const a = new PendingActivity(owner, s.scheduledEventId, s.attrs, s.scheduledTime);
    a.attempt = s.attempt;
    a.startedTime = s.startedTime;
    a.startedIdentity = s.startedIdentity;
    a.startedRequestId = s.startedRequestId;
    a.heartbeatDetails = s.heartbeatDetails;
    a.lastHeartbeatTime = s.lastHeartbeatTime;
    a.lastFailure = s.lastFailure;
    a.cancelRequested = s.cancelRequested;
    a.cancelRequestedEventId = s.cancelRequestedEventId;
    a.reset = s.reset ?? false;
    a.resetHeartbeat = s.resetHeartbeat ?? false;
    if (s.pause) {
      // Paused: nothing runs until UnpauseActivity; a lost running attempt is dispatched then.
      a.pauseInfo = s.pause;
      a.state = 'scheduled';
      a.closeDeadline?.cancel();
    } else if (s.state === 'backoff') a.backoffUntil(s.retryAt!);
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
      pause: this.pauseInfo,
      reset: this.reset || undefined,
      resetHeartbeat: this.resetHeartbeat || undefined,
    };
  }

  get activityId(): string {
    return this.attrs.activityId;
  }

  /** Queued or executing: the server is waiting on a worker, so time must not skip. */
  get isRunnable(): boolean {
    return this.state === 'started' || (this.state === 'scheduled' && !this.pauseInfo);
  }

  get pendingState(): number {
    if (this.cancelRequested) return PendingActivityState.CANCEL_REQUESTED;
    // Paused and still running on a worker is PAUSE_REQUESTED: the worker has yet to stop.
    if (this.pauseInfo) return this.state === 'started' ? PendingActivityState.PAUSE_REQUESTED : PendingActivityState.PAUSED;
    return this.state === 'started' ? PendingActivityState.STARTED : PendingActivityState.SCHEDULED;
  }

  /**
   * PendingActivityInfo's scheduled time, as Temporal's history service reports it: set only while no
   * attempt runs, and during a retry backoff the time the next attempt is due (the Web UI's "Next Retry").
   */
  get describedScheduledTime(): number | undefined {
    if (this.state === 'started') return undefined;
    return this.state === 'backoff' ? this.retryAt : this.currentAttemptScheduledTime;
  }

  /** PendingActivityInfo's pause fields. */
  pauseDescription(): Msg {
    const p = this.pauseInfo;
    return p ? { paused: true, pauseInfo: { pauseTime: msToProto(p.pauseTime), manual: { identity: p.identity, reason: p.reason } } } : {};
  }

  /** Queues the current attempt; `scheduledTime` is earlier only when a restart requeues it. */
  dispatch(scheduledTime = this.owner.ns.clock.now()): void {
    const clock = this.owner.ns.clock;
    this.state = 'scheduled';
    this.retryAt = undefined;
    this.currentAttemptScheduledTime = scheduledTime;
    this.owner.touch();
    const stamp = ++this.stamp;
    const key = this.owner.activityQueueKey(this.attrs.taskQueue.name);
    this.queuedKey = key;
    this.owner.ns.activityTasks.add(key, {
      start: (identity, requestId) => (this.state === 'scheduled' && this.stamp === stamp ? this.start(identity, requestId) : undefined),
      priorityKey: priorityKey(this.priority),
    });
    const scheduleToStart = protoToMs(this.attrs.scheduleToStartTimeout);
    if (scheduleToStart) {
      this.attemptDeadlines.push(clock.schedule(scheduledTime + scheduleToStart, () => this.timeOut(TimeoutType.SCHEDULE_TO_START)));
    }
  }

  /** Worker versioning's routing changed: a queued attempt moves to the queue of the version it now targets. */
  reroute(): void {
    if (this.state !== 'scheduled' || this.pauseInfo) return;
    if (this.owner.activityQueueKey(this.attrs.taskQueue.name) === this.queuedKey) return;
    this.clearAttemptDeadlines();
    this.dispatch(this.currentAttemptScheduledTime);
  }

  /** Starts the current attempt on a worker: from its task queue, or eagerly on the worker that scheduled it. */
  start(identity: string, requestId: string): Msg {
    const clock = this.owner.ns.clock;
    this.clearAttemptDeadlines();
    this.state = 'started';
    this.startedTime = clock.now();
    this.startedIdentity = identity;
    this.startedRequestId = requestId;
    this.owner.touch();
    this.armRunningDeadlines();
    const a = this.attrs;
    return {
      taskToken: encodeToken(this.owner.activityToken(this.scheduledEventId, this.attempt)),
      ...this.owner.activityTaskOwner(),
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

  /** The running attempt's start-to-close and heartbeat timeouts, counted from its start and last heartbeat. */
  private armRunningDeadlines(): void {
    const startToClose = protoToMs(this.attrs.startToCloseTimeout);
    if (startToClose) {
      this.attemptDeadlines.push(
        this.owner.ns.clock.schedule(this.startedTime! + startToClose, () => this.timeOut(TimeoutType.START_TO_CLOSE)),
      );
    }
    this.armHeartbeatTimeout();
  }

  /** The activity's own priority over its workflow's, as Temporal merges them for dispatch. */
  private get priority(): Msg | undefined {
    return mergePriority(this.owner.ownerPriority, this.attrs.priority);
  }

  private armHeartbeatTimeout(): void {
    this.heartbeatDeadline?.cancel();
    const heartbeat = protoToMs(this.attrs.heartbeatTimeout);
    // Details (and their time) outlive an attempt; a new attempt's clock starts at its start.
    const from = Math.max(this.lastHeartbeatTime ?? 0, this.startedTime!);
    if (heartbeat) this.heartbeatDeadline = this.owner.ns.clock.schedule(from + heartbeat, () => this.timeOut(TimeoutType.HEARTBEAT));
  }

  private clearAttemptDeadlines(): void {
    for (const d of this.attemptDeadlines) d.cancel();
    this.attemptDeadlines = [];
    this.heartbeatDeadline?.cancel();
    this.heartbeatDeadline = undefined;
  }

  /** Throws NOT_FOUND unless `token` names the attempt currently executing. */
  checkToken(token: TaskToken): void {
    if (this.state !== 'started' || token.attempt !== this.attempt) throw notFound(ACTIVITY_TASK_NOT_FOUND);
  }

  get isStarted(): boolean {
    return this.state === 'started';
  }

  /** Completion by id of an attempt no worker took: it counts as started by the caller. */
  forceStart(identity: string): void {
    this.stamp++;
    this.clearAttemptDeadlines();
    this.state = 'started';
    this.startedTime = this.owner.ns.clock.now();
    this.startedIdentity = identity;
    this.startedRequestId = randomUUID();
    this.owner.touch();
  }

  heartbeat(details: Msg | undefined): Msg {
    if (details) this.heartbeatDetails = details;
    this.lastHeartbeatTime = this.owner.ns.clock.now();
    this.owner.touch();
    if (!this.pauseInfo) this.armHeartbeatTimeout();
    return { cancelRequested: this.cancelRequested, activityPaused: Boolean(this.pauseInfo), activityReset: this.reset };
  }

  complete(result: Msg | undefined, identity: string): void {
    this.finish('activityTaskCompletedEventAttributes', { result, identity });
  }

  fail(failure: Msg | undefined, lastHeartbeatDetails: Msg | undefined, identity: string): void {
    if (lastHeartbeatDetails) this.heartbeatDetails = lastHeartbeatDetails;
    if (this.pauseInfo && !this.cancelRequested && isRetryableFailure(this.attrs.retryPolicy, failure)) {
      // Paused: the attempt counts as retried (before any attempt or time limit), and the next one waits for unpause.
      this.clearAttemptDeadlines();
      this.lastFailure = failure;
      this.attempt++;
      this.state = 'scheduled';
      this.owner.touch();
      return;
    }
    const decision = this.cancelRequested
      ? ({ retry: false, retryState: RetryState.CANCEL_REQUESTED } as const)
      : decideRetry(this.attrs.retryPolicy, this.attempt, failure, this.owner.ns.clock.now(), this.expiresAt);
    if (decision.retry) {
      this.lastFailure = failure;
      this.backoff(decision.delayMs);
      return;
    }
    this.finish('activityTaskFailedEventAttributes', { failure, identity, retryState: decision.retryState });
  }

  canceled(details: Msg | undefined, identity: string): void {
    if (!this.cancelRequested) throw invalidArgument('unable to mark activity as canceled without activity being request canceled first');
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
    this.owner.append('activityTaskCanceledEventAttributes', {
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
      const decision = decideRetry(this.attrs.retryPolicy, this.attempt, failure, this.owner.ns.clock.now(), this.expiresAt);
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
    this.consumeReset();
    this.backoffUntil(this.owner.ns.clock.now() + delayMs);
  }

  /** A new attempt is scheduled: a pending reset is done (and drops the heartbeat details if asked to). */
  private consumeReset(): void {
    if (this.resetHeartbeat) {
      this.heartbeatDetails = undefined;
      this.lastHeartbeatTime = undefined;
    }
    this.reset = false;
    this.resetHeartbeat = false;
  }

  /** PauseActivity: nothing is dispatched and no timeout runs; a running attempt learns of it from its heartbeat response. */
  pause(info: PauseInfo): void {
    if (this.pauseInfo) {
      if (this.pauseInfo.requestId === info.requestId) return;
      throw failedPrecondition('activity is already paused');
    }
    this.pauseInfo = info;
    this.stamp++;
    this.clearAttemptDeadlines();
    this.closeDeadline?.cancel();
    if (this.state === 'backoff') this.state = 'scheduled';
    this.retryAt = undefined;
    this.owner.touch();
  }

  /** UnpauseActivity (a no-op unless paused). An activity not running is dispatched now, or within `jitterMs`. */
  unpause(resetAttempts: boolean, resetHeartbeat: boolean, jitterMs: number): void {
    if (!this.pauseInfo) return;
    this.pauseInfo = undefined;
    if (resetAttempts) this.attempt = 1;
    if (resetHeartbeat) {
      this.heartbeatDetails = undefined;
      this.lastHeartbeatTime = undefined;
    }
    this.resume(jitterMs);
  }

  /**
   * ResetActivity: back to attempt 1 (unpaused unless `keepPaused` or running). A running attempt goes on and
   * its heartbeats answer activityReset; otherwise the first attempt is dispatched now (or within `jitterMs`).
   */
  resetAttempts(resetHeartbeat: boolean, keepPaused: boolean, jitterMs: number, originalOptions: Msg | undefined): void {
    this.attempt = 1;
    this.reset = true;
    if (resetHeartbeat) this.resetHeartbeat = true;
    if (originalOptions) this.attrs = { ...this.attrs, ...originalOptions };
    const wasPaused = this.pauseInfo !== undefined;
    // A running attempt stays paused (its heartbeats answer both paused and reset), as Temporal's
    // history service did until its #11666 (August 2026) and SDK 1.24's tests expect.
    if (wasPaused && !keepPaused && this.state !== 'started') this.pauseInfo = undefined;
    this.owner.touch();
    if (this.pauseInfo) return;
    if (this.state === 'started' && !wasPaused && !originalOptions) return;
    this.clearAttemptDeadlines();
    this.resume(jitterMs);
  }

  /** UpdateActivityOptions: new options apply to the running attempt's timeouts and to every later attempt. */
  updateOptions(options: Msg): void {
    this.attrs = { ...this.attrs, ...options };
    this.owner.touch();
    if (this.pauseInfo) return;
    this.clearAttemptDeadlines();
    this.armCloseDeadline();
    if (this.state === 'started') this.armRunningDeadlines();
    else if (this.state === 'backoff') this.backoffUntil(this.retryAt!);
    else this.dispatch(this.currentAttemptScheduledTime);
  }

  /** Re-arms timeouts after a pause or reset: a running attempt's from its start, otherwise a new dispatch. */
  private resume(jitterMs: number): void {
    this.armCloseDeadline();
    if (this.state === 'started') {
      this.armRunningDeadlines();
      this.owner.touch();
      return;
    }
    this.consumeReset();
    const delayMs = jitterMs > 0 ? Math.floor(Math.random() * jitterMs) : 0;
    if (delayMs > 0) this.backoffUntil(this.owner.ns.clock.now() + delayMs);
    else this.dispatch();
  }

  private backoffUntil(at: number): void {
    this.state = 'backoff';
    this.retryAt = at;
    this.owner.touch();
    this.attemptDeadlines.push(this.owner.ns.clock.schedule(at, () => this.dispatch()));
  }

  /** Writes ActivityTaskStarted (if the last attempt started) and the outcome event. */
  private finish(attrField: string, attrs: Msg): void {
    const wasStarted = this.state === 'started';
    this.close();
    this.owner.recordEvent({
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
    this.owner.activities.delete(this.scheduledEventId);
    this.owner.touch();
  }

  /** The workflow closed: drop all timers; later heartbeats and responses get NOT_FOUND. */
  abandon(): void {
    this.state = 'closed';
    this.clearAttemptDeadlines();
    this.closeDeadline?.cancel();
  }
}
