// One workflow run: its history, status and workflow-task lifecycle. Events that arrive while a
// workflow task is running are buffered and written after WorkflowTaskCompleted, like Temporal.

import { randomUUID } from 'node:crypto';
import type { Deadline } from '../common/clock.ts';
import type { ServerContext } from '../common/context.ts';
import {
  ParentClosePolicy,
  RetryState,
  Status,
  SuggestContinueAsNewReason,
  TaskQueueKind,
  TaskQueueType,
  TimeoutType,
  VersioningBehavior,
  WorkflowTaskFailedCause,
} from '../common/enums.ts';
import { invalidArgument, notFound } from '../common/errors.ts';
import type { Msg } from '../common/proto.ts';
import { msToProto, protoToMs } from '../common/time.ts';
import { encodeToken, type TaskToken } from '../common/tokens.ts';
import { overridePinnedVersion, sameVersion, type VersionRef, versionString, workerVersion } from '../common/worker-versioning.ts';
import { priorityKey, type TaskQueues } from '../matching/task-queues.ts';
import { type ActivityHost, type ActivitySnapshot, PendingActivity } from './activity-tasks.ts';
import { applyCommands, type CommandStarts, type CommandTarget, validateCommands } from './commands.ts';
import { History, type RecordedEvent } from './event-history.ts';
import { Queries, type QueryHost } from './queries.ts';
import { type UpdateHost, type UpdateSnapshot, Updates } from './updates.ts';

/**
 * What a run needs of its namespace (namespace/registry.ts implements it): the server's clock,
 * limits and settings, the task queues and routing by worker version, the starts its commands
 * make, and who hears of its changes. A run knows no namespace or server class.
 */
export interface RunHost extends ServerContext, ActivityHost {
  readonly name: string;
  readonly workflowTasks: TaskQueues<Msg>;
  /** Task queue names are namespace-scoped. */
  queueKey(taskQueue: string): string;
  readonly deployments: TaskRouting;
  readonly starts: CommandStarts<Execution>;
  current(workflowId: string): Execution | undefined;
  /** The run's state changed (persistence commits it before the request is answered). */
  runChanged(exec: Execution): void;
  onClosed(exec: Execution): void;
}

/** Where worker versioning sends a run's tasks (deployments/deployments.ts). */
export interface TaskRouting {
  /** The version a new task on `taskQueue` targets; undefined: unversioned workers. */
  route(taskQueue: string, type: number, workflowId: string, useRamping?: boolean): VersionRef | undefined;
  queueKey(taskQueue: string, version: VersionRef | undefined): string;
  hasQueue(version: VersionRef, taskQueue: string, type: number): boolean;
}

export interface ParentRef {
  namespace: string;
  namespaceId: string;
  execution: { workflowId: string; runId: string };
  initiatedEventId: number;
}

export interface StartOptions {
  workflowId: string;
  runId: string;
  firstRunId: string;
  /** The request id that created this run (client starts and children). */
  requestId?: string;
  workflowType: Msg;
  taskQueue: string;
  input?: Msg;
  header?: Msg;
  memo?: Msg;
  searchAttributes?: Msg;
  runTimeoutMs?: number;
  executionTimeoutMs?: number;
  /** Absolute virtual time when the whole chain (all runs) expires. */
  expirationTime?: number;
  taskTimeoutMs: number;
  retryPolicy?: Msg;
  attempt: number;
  identity?: string;
  parent?: ParentRef;
  rootExecution?: { workflowId: string; runId: string };
  continuedExecutionRunId?: string;
  initiator?: number;
  continuedFailure?: Msg;
  lastCompletionResult?: Msg;
  firstWorkflowTaskBackoffMs?: number;
  /** The run's Priority (inherited by its activities and children, and by the next run of the chain). */
  priority?: Msg;
  /** The start's summary and details (UserMetadata), kept on WorkflowExecutionStarted and shown by Describe. */
  userMetadata?: Msg;
  /** The start's VersioningOverride (worker versioning), kept on WorkflowExecutionStarted. */
  versioningOverride?: Msg;
  /** A pinned parent's (or previous run's) version, which the run starts pinned to. */
  inheritedPinnedVersion?: VersionRef;
  /** Continued as new with USE_RAMPING_VERSION: until a versioned worker completes a task, the run targets the ramping version whatever its percentage. */
  useRampingVersion?: boolean;
}

/** What worker versioning knows of a run: the last completing worker's version and behavior, and the operator's override. */
export interface RunVersioning {
  /** VersioningBehavior the worker reported with its last workflow task completion (0: unversioned worker). */
  behavior: number;
  /** The version of the worker that completed the last workflow task; unset: an unversioned worker (or none yet). */
  version?: VersionRef;
  /** VersioningOverride from the start or UpdateWorkflowExecutionOptions. */
  override?: Msg;
}

interface WorkflowTask extends SavedWorkflowTask {
  /** Distinguishes task instances so late responses to superseded ones are rejected. */
  instance: number;
  deadline?: Deadline;
  /** The task-queue key it was last queued under (its version's), so a rerouted task is skipped on the old one. */
  key?: string;
}

interface SavedWorkflowTask {
  scheduledEventId: number;
  startedEventId: number;
  attempt: number;
  queue: string;
  sticky: boolean;
  scheduledTime: number;
  startedTime?: number;
}

/** A run's mutable state as persistence.ts stores it (JSON; the history and StartOptions are kept apart). */
export interface ExecutionSnapshot {
  status: number;
  startTime: number;
  closeTime?: number;
  memo: Record<string, Msg>;
  searchAttributes: Record<string, Msg>;
  requestIds: string[];
  cancelRequested: boolean;
  nextRunId?: string;
  children: Array<[number, ChildRef]>;
  timers: Array<{ timerId: string; startedEventId: number; at: number }>;
  activities: ActivitySnapshot[];
  updates: UpdateSnapshot[];
  workflowTask?: SavedWorkflowTask;
  buffered: RecordedEvent[];
  previousStartedEventId: number;
  stickyQueue?: string;
  stickyTimeoutMs: number;
  runTimeoutAt?: number;
  firstTaskAt?: number;
  stateTransitionCount?: number;
  versioning?: RunVersioning;
  /** The run a reset of this one made (ResetWorkflowExecution). */
  resetRunId?: string;
  /** When this run was made by a reset. */
  resetTime?: number;
}

export interface ChildRef {
  namespace: string;
  workflowId: string;
  runId?: string;
  workflowType: Msg;
  parentClosePolicy: number;
  /** Id of ChildWorkflowExecutionStarted in the parent (0 until written). */
  startedEventId: number;
}

let instanceSeq = 1;

/** WorkflowTaskStarted of a run's first task: after WorkflowExecutionStarted and WorkflowTaskScheduled. */
const FIRST_TASK_STARTED_EVENT_ID = 3;

export const DEFAULT_STICKY_TIMEOUT_MS = 10_000;
/** The identity Temporal's history service gives the terminations it makes itself. */
const HISTORY_SERVICE = 'history-service';

export class Execution implements CommandTarget, UpdateHost, QueryHost {
  readonly ns: RunHost;
  readonly options: StartOptions;
  readonly history = new History();
  status = Status.RUNNING;
  readonly startTime: number;
  closeTime: number | undefined;
  memo: Record<string, Msg>;
  searchAttributes: Record<string, Msg>;
  /** Request ids already applied (start, signal, cancel), for idempotent retries. */
  readonly requestIds = new Set<string>();
  readonly activities = new Map<number, PendingActivity>();
  readonly timers = new Map<string, { startedEventId: number; deadline: Deadline }>();
  readonly children = new Map<number, ChildRef>();
  cancelRequested = false;
  readonly updates: Updates = new Updates(this);
  readonly queries: Queries = new Queries(this);
  /** Run id of the next run when this one continued as new or was retried. */
  nextRunId: string | undefined;
  /** Like Temporal's: one per change of the run's state (all the changes one request or deadline makes count once). */
  stateTransitionCount = 0;
  /** The run a reset of this one made, and (on a run a reset made) when: Describe's resetRunId and lastResetTime. */
  resetRunId: string | undefined;
  resetTime: number | undefined;
  private transitionOpen = false;
  /** A completion tried to close the run and was refused (UNHANDLED_COMMAND), until a task completes (kept in memory only). */
  private closeAttempted = false;
  versioning: RunVersioning;

  private wt: WorkflowTask | undefined;
  private buffered: RecordedEvent[] = [];
  /** WorkflowTaskStarted id of the last completed task: where a sticky worker's cache ends. */
  previousStartedEventId = 0;
  private stickyQueue: string | undefined;
  private stickyTimeoutMs = DEFAULT_STICKY_TIMEOUT_MS;
  /** When the run times out, and when a start delay or retry backoff lets the first workflow task run. */
  private runTimeoutAt: number | undefined;
  private firstTaskAt: number | undefined;
  private deadlines: Deadline[] = [];

  /** Starts a run, or with `saved` takes one back from the state file (then `resume` re-arms it). */
  constructor(ns: RunHost, options: StartOptions, saved?: { state: ExecutionSnapshot; events: Msg[] }) {
    this.ns = ns;
    this.options = options;
    if (saved) {
      const s = saved.state;
      this.startTime = s.startTime;
      this.history.restore(saved.events);
      this.status = s.status;
      this.closeTime = s.closeTime;
      this.memo = s.memo;
      this.searchAttributes = s.searchAttributes;
      for (const id of s.requestIds) this.requestIds.add(id);
      this.cancelRequested = s.cancelRequested;
      this.nextRunId = s.nextRunId;
      for (const [initiatedEventId, child] of s.children) this.children.set(initiatedEventId, child);
      this.updates.restore(s.updates);
      this.buffered = s.buffered;
      this.previousStartedEventId = s.previousStartedEventId;
      this.stickyQueue = s.stickyQueue;
      this.stickyTimeoutMs = s.stickyTimeoutMs;
      this.runTimeoutAt = s.runTimeoutAt;
      this.firstTaskAt = s.firstTaskAt;
      // Files written before the count was kept start it at 0.
      this.stateTransitionCount = s.stateTransitionCount ?? 0;
      this.versioning = s.versioning ?? { behavior: 0, override: options.versioningOverride };
      this.resetRunId = s.resetRunId;
      this.resetTime = s.resetTime;
      return;
    }
    this.versioning = options.inheritedPinnedVersion
      ? { behavior: VersioningBehavior.PINNED, version: options.inheritedPinnedVersion, override: options.versioningOverride }
      : { behavior: 0, override: options.versioningOverride };
    this.startTime = ns.clock.now();
    this.memo = { ...(options.memo?.fields ?? {}) };
    this.searchAttributes = { ...(options.searchAttributes?.indexedFields ?? {}) };
    this.history.append('workflowExecutionStartedEventAttributes', this.startedAttributes(), this.startTime, {
      userMetadata: options.userMetadata,
    });
    this.touch();
  }

  /** Marks the run's state as changed, to be committed before the current request is answered. */
  touch(): void {
    if (!this.transitionOpen) {
      // The changes made until the current job's microtasks have run are one transition.
      this.transitionOpen = true;
      this.stateTransitionCount++;
      queueMicrotask(() => {
        this.transitionOpen = false;
      });
    }
    this.ns.runChanged(this);
  }

  addRequestId(requestId: string): void {
    this.requestIds.add(requestId);
    this.touch();
  }

  snapshot(): ExecutionSnapshot {
    const wt = this.wt;
    return {
      status: this.status,
      startTime: this.startTime,
      closeTime: this.closeTime,
      memo: this.memo,
      searchAttributes: this.searchAttributes,
      requestIds: [...this.requestIds],
      cancelRequested: this.cancelRequested,
      nextRunId: this.nextRunId,
      children: [...this.children],
      timers: [...this.timers].map(([timerId, t]) => ({ timerId, startedEventId: t.startedEventId, at: t.deadline.at })),
      activities: [...this.activities.values()].map((a) => a.snapshot()),
      updates: this.updates.snapshot(),
      workflowTask: wt && {
        scheduledEventId: wt.scheduledEventId,
        startedEventId: wt.startedEventId,
        attempt: wt.attempt,
        queue: wt.queue,
        sticky: wt.sticky,
        scheduledTime: wt.scheduledTime,
        startedTime: wt.startedTime,
      },
      buffered: this.buffered,
      previousStartedEventId: this.previousStartedEventId,
      stickyQueue: this.stickyQueue,
      stickyTimeoutMs: this.stickyTimeoutMs,
      runTimeoutAt: this.runTimeoutAt,
      firstTaskAt: this.firstTaskAt,
      stateTransitionCount: this.stateTransitionCount,
      versioning: this.versioning,
      resetRunId: this.resetRunId,
      resetTime: this.resetTime,
    };
  }

  /**
   * After a restart: re-arms the run's deadlines (those that passed meanwhile fire at once) and
   * requeues its tasks. A workflow task that was running on a worker times out now, as Temporal
   * times it out after its start-to-close timeout (the worker's token died with the old process).
   */
  resume(s: ExecutionSnapshot): void {
    if (!this.isOpen) return;
    this.armDeadlines();
    for (const t of s.timers) this.startTimer(t.timerId, t.startedEventId, t.at);
    for (const a of s.activities) this.addActivity(PendingActivity.restore(this, a));
    if (!s.workflowTask) return;
    const wt: WorkflowTask = { ...s.workflowTask, instance: instanceSeq++ };
    this.wt = wt;
    if (wt.startedEventId === 0) this.dispatchWorkflowTask(wt);
    else this.timeOutWorkflowTask(wt);
  }

  get workflowId(): string {
    return this.options.workflowId;
  }
  get runId(): string {
    return this.options.runId;
  }
  get isOpen(): boolean {
    return this.status === Status.RUNNING;
  }
  get ref(): { workflowId: string; runId: string } {
    return { workflowId: this.workflowId, runId: this.runId };
  }
  /** True while a workflow task is scheduled or running; stops time skipping. */
  get hasOutstandingWorkflowTask(): boolean {
    return this.wt !== undefined;
  }
  get executionTime(): number {
    return this.startTime + (this.options.firstWorkflowTaskBackoffMs ?? 0);
  }
  /** When the run times out (run or execution timeout), if it has a timeout. */
  get runExpirationTime(): number | undefined {
    return this.runTimeoutAt;
  }
  /**
   * As Temporal's update API sees the run: the attempt of its pending workflow task (1 with none),
   * and whether a task runs again after its last one tried to close the run.
   */
  get workflowTaskState(): { attempt: number; closing: boolean } {
    return { attempt: this.wt?.attempt ?? 1, closing: this.closeAttempted && (this.wt?.startedEventId ?? 0) > 0 };
  }

  /** The workflow task scheduled or running, for Describe. */
  get pendingWorkflowTask(): Readonly<SavedWorkflowTask> | undefined {
    return this.wt;
  }

  private startedAttributes(): Msg {
    const o = this.options;
    return {
      workflowType: o.workflowType,
      taskQueue: { name: o.taskQueue, kind: TaskQueueKind.NORMAL },
      input: o.input,
      header: o.header,
      workflowExecutionTimeout: o.executionTimeoutMs ? msToProto(o.executionTimeoutMs) : undefined,
      workflowRunTimeout: o.runTimeoutMs ? msToProto(o.runTimeoutMs) : undefined,
      workflowTaskTimeout: msToProto(o.taskTimeoutMs),
      continuedExecutionRunId: o.continuedExecutionRunId,
      initiator: o.initiator,
      continuedFailure: o.continuedFailure,
      lastCompletionResult: o.lastCompletionResult,
      originalExecutionRunId: o.runId,
      identity: o.identity,
      firstExecutionRunId: o.firstRunId,
      retryPolicy: o.retryPolicy,
      attempt: o.attempt,
      workflowExecutionExpirationTime: o.expirationTime ? msToProto(o.expirationTime) : undefined,
      firstWorkflowTaskBackoff: o.firstWorkflowTaskBackoffMs ? msToProto(o.firstWorkflowTaskBackoffMs) : undefined,
      memo: o.memo,
      searchAttributes: o.searchAttributes,
      parentWorkflowNamespace: o.parent?.namespace,
      parentWorkflowNamespaceId: o.parent?.namespaceId,
      parentWorkflowExecution: o.parent?.execution,
      parentInitiatedEventId: o.parent?.initiatedEventId,
      // As Temporal: only a child (or a later run of one) names its root; a root run's is itself, unsaid.
      rootWorkflowExecution: o.rootExecution,
      workflowId: o.workflowId,
      priority: o.priority,
      versioningOverride: o.versioningOverride,
      inheritedPinnedVersion: o.inheritedPinnedVersion,
    };
  }

  /**
   * Schedules the first workflow task and the run timeout. Called after all initial events
   * (e.g. signal-with-start's signal) are appended, so the first task sees them. With `eager`
   * (eager workflow start, no backoff) the task is started for the starter right away and its poll
   * response returned, instead of being queued.
   */
  begin(eager?: { identity: string; requestId: string }): Msg | undefined {
    const now = this.ns.clock.now();
    // As Temporal: the run timeout counts from the start plus any start delay or retry backoff.
    const runDeadline = this.options.runTimeoutMs ? this.executionTime + this.options.runTimeoutMs : undefined;
    const timeoutAt = Math.min(runDeadline ?? Infinity, this.options.expirationTime ?? Infinity);
    if (timeoutAt !== Infinity) this.runTimeoutAt = timeoutAt;
    const backoff = this.options.firstWorkflowTaskBackoffMs;
    if (backoff) this.firstTaskAt = now + backoff;
    this.armDeadlines();
    if (backoff) return undefined;
    return this.scheduleWorkflowTask(1, eager);
  }

  private armDeadlines(): void {
    const clock = this.ns.clock;
    if (this.runTimeoutAt !== undefined) this.deadlines.push(clock.schedule(this.runTimeoutAt, () => this.timeOut()));
    if (this.firstTaskAt !== undefined) {
      this.deadlines.push(
        clock.schedule(this.firstTaskAt, () => {
          // An update may have brought the first workflow task forward (as in Temporal).
          if (this.firstTaskAt === undefined) return;
          this.firstTaskAt = undefined;
          this.touch();
          this.ensureWorkflowTask();
        }),
      );
    }
  }

  // ---- events ----

  /** Appends an event produced by the server itself (command results), never buffered; see History.append for `command`. */
  append(attrField: string, attrs: Msg, command?: Msg): Msg {
    this.touch();
    return this.history.append(attrField, attrs, this.ns.clock.now(), command);
  }

  /**
   * Records an event that the workflow must see (signal, timer fired, activity result...).
   * While a workflow task runs it is buffered; otherwise it is written and a task scheduled.
   */
  record(attrField: string, attrs: Msg): void {
    this.recordEvent({ attrField, attrs });
  }

  recordEvent(event: RecordedEvent): void {
    if (!this.isOpen) return;
    if (this.wt && this.wt.startedEventId > 0) {
      this.buffered.push(event);
      this.touch();
      return;
    }
    this.write(event);
    this.ensureWorkflowTask();
  }

  private write(recorded: RecordedEvent): void {
    let attrs = recorded.attrs;
    if (recorded.activityStarted) {
      attrs = { ...attrs, startedEventId: this.append('activityTaskStartedEventAttributes', recorded.activityStarted).eventId };
    }
    const event = this.append(recorded.attrField, attrs);
    // The child's ChildWorkflowExecutionStarted id is known only once written (it may have been buffered).
    if (recorded.attrField === 'childWorkflowExecutionStartedEventAttributes') {
      const child = this.children.get(attrs.initiatedEventId);
      if (child) child.startedEventId = event.eventId;
    }
  }

  private flushBuffered(): boolean {
    const events = this.buffered;
    this.buffered = [];
    for (const event of events) this.write(event);
    // An options update is not something the workflow must see, so it alone needs no new task.
    return events.some((e) => e.attrField !== 'workflowExecutionOptionsUpdatedEventAttributes');
  }

  // ---- timers ----

  startTimer(timerId: string, startedEventId: number, at: number): void {
    const deadline = this.ns.clock.schedule(at, () => {
      if (this.timers.get(timerId)?.startedEventId !== startedEventId) return;
      this.timers.delete(timerId);
      this.record('timerFiredEventAttributes', { timerId, startedEventId });
    });
    this.timers.set(timerId, { startedEventId, deadline });
  }

  // ---- workflow tasks ----

  ensureWorkflowTask(): void {
    if (this.isOpen && !this.wt) this.scheduleWorkflowTask(1);
  }

  private scheduleWorkflowTask(attempt: number, eager?: { identity: string; requestId: string }): Msg | undefined {
    this.firstTaskAt = undefined;
    // A task bound for another version than the sticky worker's goes to that version's normal queue.
    const sticky = this.stickyQueue !== undefined && sameVersion(this.targetVersion(), this.versioning.version);
    const queue = sticky ? this.stickyQueue! : this.options.taskQueue;
    const event = this.append('workflowTaskScheduledEventAttributes', {
      taskQueue: sticky
        ? { name: queue, kind: TaskQueueKind.STICKY, normalName: this.options.taskQueue }
        : { name: queue, kind: TaskQueueKind.NORMAL },
      startToCloseTimeout: msToProto(this.options.taskTimeoutMs),
      attempt,
    });
    const wt: WorkflowTask = {
      scheduledEventId: event.eventId,
      startedEventId: 0,
      attempt,
      instance: instanceSeq++,
      queue,
      sticky,
      scheduledTime: this.ns.clock.now(),
    };
    this.wt = wt;
    if (eager) return this.startWorkflowTask(wt, eager.identity, eager.requestId);
    this.dispatchWorkflowTask(wt);
    return undefined;
  }

  /**
   * For a retried eager start: the first workflow task's poll response again, while that task is
   * still running in its first attempt (as Temporal answers a deduplicated eager start).
   */
  firstWorkflowTaskAgain(): Msg | undefined {
    const wt = this.wt;
    if (!this.isOpen || !wt || wt.attempt !== 1 || wt.startedEventId !== FIRST_TASK_STARTED_EVENT_ID) return undefined;
    return this.workflowTaskResponse(wt);
  }

  private dispatchWorkflowTask(wt: WorkflowTask): void {
    const queue = wt.queue;
    // Sticky queues belong to one worker; normal ones are split by the version the task targets.
    const key = wt.sticky ? this.ns.queueKey(queue) : this.ns.deployments.queueKey(queue, this.targetVersion());
    wt.key = key;
    this.ns.workflowTasks.add(key, {
      start: (identity, requestId, stamp) =>
        this.wt === wt && wt.queue === queue && wt.key === key && wt.startedEventId === 0
          ? this.startWorkflowTask(wt, identity, requestId, stamp)
          : undefined,
      priorityKey: priorityKey(this.options.priority),
    });
    if (wt.sticky) {
      // A sticky task nobody picks up (worker gone) falls back to the normal queue.
      wt.deadline = this.ns.clock.schedule(wt.scheduledTime + this.stickyTimeoutMs, () => {
        if (this.wt !== wt || wt.startedEventId !== 0) return;
        this.append('workflowTaskTimedOutEventAttributes', {
          scheduledEventId: wt.scheduledEventId,
          timeoutType: TimeoutType.SCHEDULE_TO_START,
        });
        this.stickyQueue = undefined;
        this.wt = undefined;
        this.scheduleWorkflowTask(1);
      });
    }
  }

  /** `stamp`: the poller's build id (WorkerVersionStamp), for workers not on worker deployments. */
  private startWorkflowTask(wt: WorkflowTask, identity: string, requestId: string, stamp?: Msg): Msg {
    wt.deadline?.cancel();
    const clock = this.ns.clock;
    // As Temporal: the size of the history before this event, and its id as the count.
    const historySizeBytes = this.history.sizeBytes;
    const limits = this.ns.limits;
    const reasons: number[] = [];
    if (historySizeBytes >= limits.historySizeSuggestContinueAsNew) reasons.push(SuggestContinueAsNewReason.HISTORY_SIZE_TOO_LARGE);
    if (this.history.lastEventId + 1 >= limits.historyCountSuggestContinueAsNew) {
      reasons.push(SuggestContinueAsNewReason.TOO_MANY_HISTORY_EVENTS);
    }
    if (this.updates.suggestContinueAsNew) reasons.push(SuggestContinueAsNewReason.TOO_MANY_UPDATES);
    const started = this.append('workflowTaskStartedEventAttributes', {
      scheduledEventId: wt.scheduledEventId,
      identity,
      requestId,
      suggestContinueAsNew: reasons.length > 0,
      suggestContinueAsNewReasons: reasons,
      historySizeBytes,
      workerVersion: stamp,
      targetWorkerDeploymentVersionChanged: this.targetVersionChanged,
    });
    this.noteBuildId(stamp);
    wt.startedEventId = started.eventId;
    wt.startedTime = clock.now();
    wt.deadline = clock.after(this.options.taskTimeoutMs, () => {
      if (this.wt === wt) this.timeOutWorkflowTask(wt);
    });
    return this.workflowTaskResponse(wt);
  }

  private workflowTaskResponse(wt: WorkflowTask): Msg {
    const messages = this.updates.messagesFor(wt.startedEventId);
    const previous = this.previousStartedEventId;
    // Sticky workers have the earlier events cached and get only what follows their last task.
    const events = wt.sticky && previous > 0 ? this.history.events.slice(previous) : this.history.events;
    return {
      taskToken: encodeToken(this.token('wt', wt.scheduledEventId, wt.instance)),
      workflowExecution: this.ref,
      workflowType: this.options.workflowType,
      previousStartedEventId: previous,
      startedEventId: wt.startedEventId,
      attempt: wt.attempt,
      history: { events: [...events] },
      workflowExecutionTaskQueue: { name: this.options.taskQueue, kind: TaskQueueKind.NORMAL },
      scheduledTime: msToProto(wt.scheduledTime),
      startedTime: msToProto(wt.startedTime!),
      messages,
    };
  }

  private timeOutWorkflowTask(wt: WorkflowTask): void {
    this.append('workflowTaskTimedOutEventAttributes', {
      scheduledEventId: wt.scheduledEventId,
      startedEventId: wt.startedEventId,
      timeoutType: TimeoutType.START_TO_CLOSE,
    });
    this.retryWorkflowTask(wt, wt.attempt + 1);
  }

  token(kind: TaskToken['kind'], id: number, attempt: number): TaskToken {
    return { boot: this.ns.bootId, namespace: this.ns.name, workflowId: this.workflowId, runId: this.runId, kind, id, attempt };
  }

  private runningTask(token: TaskToken): WorkflowTask {
    const wt = this.wt;
    if (!wt || wt.instance !== token.attempt || wt.startedEventId === 0 || !this.isOpen) {
      throw notFound('Workflow task not found.');
    }
    return wt;
  }

  /** After a failed or timed-out task: write what arrived meanwhile and try again on the normal queue. */
  private retryWorkflowTask(wt: WorkflowTask, nextAttempt: number): void {
    wt.deadline?.cancel();
    this.wt = undefined;
    this.stickyQueue = undefined;
    this.flushBuffered();
    if (this.isOpen) this.scheduleWorkflowTask(nextAttempt);
    this.queries.dispatch();
  }

  completeWorkflowTask(token: TaskToken, request: Msg): Msg {
    const wt = this.runningTask(token);
    // Temporal terminates a run whose history is already past its limits instead of applying the completion.
    const overLimit = this.historyOverLimit();
    if (overLimit) {
      this.terminate(overLimit, undefined, HISTORY_SERVICE);
      throw invalidArgument(overLimit);
    }
    const commands: Msg[] = request.commands ?? [];
    const messages: Msg[] = request.messages ?? [];
    const identity: string = request.identity ?? '';
    const closes = commands.some((c) => isCloseCommand(c));
    if (closes && this.buffered.length > 0) {
      // A signal (etc.) raced the completion: reject the close so the workflow sees it.
      return this.failTask(wt, WorkflowTaskFailedCause.UNHANDLED_COMMAND, identity, {
        message: 'Workflow task completion rejected: new events arrived while the task was running.',
      });
    }
    if (closes && this.updates.hasUndelivered) {
      return this.failTask(wt, WorkflowTaskFailedCause.UNHANDLED_UPDATE, identity, {
        message: 'Workflow task completion rejected: an update arrived while the task was running.',
      });
    }
    const invalid = validateCommands(this, commands, messages);
    if (invalid) {
      // Temporal fails a task this way once; a retry that fails again is refused and left to time out.
      if (wt.attempt > 1) throw invalidArgument(invalid.message);
      const failure = { message: invalid.message, serverFailureInfo: {} };
      return this.failTask(wt, invalid.cause, identity, failure, invalid.terminate ? invalid.message : undefined);
    }

    wt.deadline?.cancel();
    const completed = this.append('workflowTaskCompletedEventAttributes', {
      scheduledEventId: wt.scheduledEventId,
      startedEventId: wt.startedEventId,
      identity,
      sdkMetadata: request.sdkMetadata,
      meteringMetadata: request.meteringMetadata,
      ...this.noteCompletingWorker(request),
    });
    this.previousStartedEventId = wt.startedEventId;
    this.closeAttempted = false;
    this.wt = undefined;
    const sticky = request.stickyAttributes?.workerTaskQueue?.name as string | undefined;
    this.stickyQueue = sticky || undefined;
    this.stickyTimeoutMs = protoToMs(request.stickyAttributes?.scheduleToStartTimeout) ?? DEFAULT_STICKY_TIMEOUT_MS;

    const followUps: Array<() => void> = [];
    const eager: PendingActivity[] = [];
    const needsTask = applyCommands(this, commands, messages, completed.eventId, identity, followUps, eager);
    if (this.isOpen && !request.forceCreateNewWorkflowTask) this.updates.rejectUnprocessed();
    const hadBuffered = this.isOpen && this.flushBuffered();
    const newTask = needsTask || hadBuffered || request.forceCreateNewWorkflowTask || this.updates.hasUndelivered;
    if (this.isOpen && newTask) this.scheduleWorkflowTask(1);
    // Eager activities start on the completing worker, as Temporal does once all commands are
    // applied: not when the run closed or the activity was cancelled by the same completion.
    const activityTasks = eager
      .filter((a) => this.isOpen && this.activities.get(a.scheduledEventId) === a)
      .map((a) => a.start(identity, randomUUID()));
    // Cross-execution effects (child starts, external signals) happen after this task is committed.
    for (const f of followUps) queueMicrotask(() => guarded('follow-up of a workflow task', f));
    this.queries.dispatch();
    return { activityTasks };
  }

  private historyOverLimit(): string | undefined {
    const limits = this.ns.limits;
    if (this.history.sizeBytes > limits.historySizeError) return 'Workflow history size exceeds limit.';
    if (this.history.lastEventId > limits.historyCountError) return 'Workflow history count exceeds limit.';
    return undefined;
  }

  failWorkflowTask(token: TaskToken, request: Msg): Msg {
    const wt = this.runningTask(token);
    return this.failTask(wt, request.cause ?? 0, request.identity ?? '', request.failure);
  }

  /** Writes WorkflowTaskFailed, then retries the task, or with `terminateReason` terminates the run instead. */
  private failTask(wt: WorkflowTask, cause: number, identity: string, failure: Msg | undefined, terminateReason?: string): Msg {
    this.append('workflowTaskFailedEventAttributes', {
      scheduledEventId: wt.scheduledEventId,
      startedEventId: wt.startedEventId,
      cause,
      failure,
      identity,
    });
    if (terminateReason !== undefined) {
      wt.deadline?.cancel();
      this.wt = undefined;
      // Temporal writes what arrived during the task before the termination.
      this.flushBuffered();
      this.terminate(terminateReason, undefined, HISTORY_SERVICE);
      return {};
    }
    if (cause === WorkflowTaskFailedCause.UNHANDLED_COMMAND) this.closeAttempted = true;
    // Unhandled-command rejections are not the worker's fault: the next task starts at attempt 1.
    this.retryWorkflowTask(wt, cause === WorkflowTaskFailedCause.UNHANDLED_COMMAND ? 1 : wt.attempt + 1);
    return {};
  }

  /** Worker shut down or asked to reset stickiness: its sticky tasks move to the normal queue. */
  resetSticky(): void {
    this.stickyQueue = undefined;
    this.touch();
    const wt = this.wt;
    if (wt?.sticky && wt.startedEventId === 0) {
      wt.deadline?.cancel();
      wt.sticky = false;
      wt.queue = this.options.taskQueue;
      this.dispatchWorkflowTask(wt);
    }
  }

  get stickyTaskQueue(): string | undefined {
    return this.stickyQueue;
  }

  // ---- worker versioning ----

  /** The effective VersioningBehavior: the override's, else what the last completing worker reported. */
  get behavior(): number {
    const o = this.versioning.override;
    if (!o) return this.versioning.behavior;
    return o.autoUpgrade || o.behavior === VersioningBehavior.AUTO_UPGRADE ? VersioningBehavior.AUTO_UPGRADE : VersioningBehavior.PINNED;
  }

  /** The version the run is pinned to (by override, or by a PINNED worker), if any. */
  get pinnedVersion(): VersionRef | undefined {
    const o = this.versioning.override;
    if (o) return overridePinnedVersion(o);
    return this.versioning.behavior === VersioningBehavior.PINNED ? this.versioning.version : undefined;
  }

  /**
   * The version the next workflow task goes to, as Temporal's history service decides it: a pinned
   * run's version, else the task queue's routing (current version, or the ramping one for the
   * share of workflow ids in the ramp), so AUTO_UPGRADE and unversioned runs move with it.
   */
  targetVersion(): VersionRef | undefined {
    const ramping = Boolean(this.options.useRampingVersion) && !this.versioning.version;
    return this.pinnedVersion ?? this.ns.deployments.route(this.options.taskQueue, TaskQueueType.WORKFLOW, this.workflowId, ramping);
  }

  /**
   * As Temporal tells a pinned run (WorkflowTaskStarted's targetWorkerDeploymentVersionChanged,
   * the SDK's workflowInfo().targetWorkerDeploymentVersionChanged) that new runs of its task queue
   * now go to another version than its own, so it may continue as new onto it.
   */
  private get targetVersionChanged(): boolean {
    const pinned = this.behavior === VersioningBehavior.PINNED ? this.pinnedVersion : undefined;
    if (!pinned) return false;
    return !sameVersion(this.ns.deployments.route(this.options.taskQueue, TaskQueueType.WORKFLOW, this.workflowId), pinned);
  }

  /** Where a query task goes: the normal queue of the version the run's next workflow task targets. */
  get queryQueueKey(): string {
    return this.ns.deployments.queueKey(this.options.taskQueue, this.targetVersion());
  }

  /**
   * Where this run's activities on `taskQueue` are queued: with the run's own version when that
   * version polls the queue, else by the queue's routing.
   */
  activityQueueKey(taskQueue: string): string {
    const deployments = this.ns.deployments;
    const own = this.pinnedVersion ?? this.versioning.version;
    const version =
      own && deployments.hasQueue(own, taskQueue, TaskQueueType.ACTIVITY)
        ? own
        : deployments.route(taskQueue, TaskQueueType.ACTIVITY, this.workflowId);
    return deployments.queueKey(taskQueue, version);
  }

  /**
   * The version a child or the next run on `taskQueue` in `ns` starts pinned to, as Temporal
   * passes it on: this run's, when it is pinned and that version polls the task queue.
   */
  inheritedPin(ns: RunHost, taskQueue: string): VersionRef | undefined {
    const pinned = this.behavior === VersioningBehavior.PINNED ? this.pinnedVersion : undefined;
    return pinned && ns === this.ns && ns.deployments.hasQueue(pinned, taskQueue, TaskQueueType.WORKFLOW) ? pinned : undefined;
  }

  /** The routing changed (current or ramping version, override): tasks not yet taken move to where it now says. */
  reroute(): void {
    const wt = this.wt;
    if (wt && wt.startedEventId === 0) {
      if (wt.sticky && !sameVersion(this.targetVersion(), this.versioning.version)) this.resetSticky();
      else if (!wt.sticky && wt.key !== this.ns.deployments.queueKey(wt.queue, this.targetVersion())) this.dispatchWorkflowTask(wt);
    }
    for (const a of this.activities.values()) a.reroute();
  }

  /**
   * A completion's worker version and behavior become the run's (an unversioned worker clears them);
   * its checksum and version stamp go on WorkflowTaskCompleted, as in Temporal.
   */
  private noteCompletingWorker(request: Msg): Msg {
    const version = workerVersion(request.deploymentOptions);
    this.versioning = { ...this.versioning, behavior: version ? (request.versioningBehavior ?? 0) : 0, version };
    const stamp: Msg | undefined = request.workerVersionStamp;
    this.noteBuildId(stamp);
    const worker = { binaryChecksum: request.binaryChecksum, workerVersion: stamp };
    if (!version) return worker;
    return {
      ...worker,
      versioningBehavior: request.versioningBehavior ?? 0,
      workerDeploymentName: version.deploymentName,
      workerDeploymentVersion: versionString(version),
      deploymentVersion: version,
    };
  }

  /**
   * Temporal's BuildIds list, updated as a task starts (with the poller's stamp) and completes:
   * first `unversioned` (an unversioned run) or `pinned:<deployment>:<build id>` (a pinned one),
   * then every build id stamped on a task, as `unversioned:<id>` or `versioned:<id>`.
   */
  private noteBuildId(stamp: Msg | undefined): void {
    const entry = stamp?.buildId ? `${stamp.useVersioning ? 'versioned' : 'unversioned'}:${stamp.buildId}` : undefined;
    const pinned = this.behavior === VersioningBehavior.PINNED ? this.pinnedVersion : undefined;
    const sentinel = pinned
      ? `pinned:${pinned.deploymentName}:${pinned.buildId}`
      : !stamp?.useVersioning && !this.behavior
        ? 'unversioned'
        : undefined;
    const payload = this.searchAttributes.BuildIds;
    const previous: string[] = payload?.data ? JSON.parse(Buffer.from(payload.data).toString()) : [];
    const kept = previous.filter((v) => v !== 'unversioned' && !v.startsWith('pinned:') && !v.startsWith('assigned:'));
    const values = [...(sentinel ? [sentinel] : []), ...kept, ...(entry && !kept.includes(entry) ? [entry] : [])];
    if (values.length === previous.length && values.every((v, i) => v === previous[i])) return;
    this.searchAttributes = {
      ...this.searchAttributes,
      BuildIds: {
        metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from('KeywordList') },
        data: Buffer.from(JSON.stringify(values)),
      },
    };
  }

  /** DescribeWorkflowExecution's versioningInfo; unset for a run no versioned worker or override touched. */
  versioningInfo(): Msg | undefined {
    const v = this.versioning;
    if (!v.version && !v.override) return undefined;
    const target = this.wt && this.wt.startedEventId === 0 ? this.targetVersion() : undefined;
    const transition =
      target && !sameVersion(target, v.version) ? { version: versionString(target), deploymentVersion: target } : undefined;
    return {
      behavior: this.behavior,
      version: v.version ? versionString(v.version) : undefined,
      deploymentVersion: v.version,
      versioningOverride: v.override,
      versionTransition: transition,
    };
  }

  /**
   * UpdateWorkflowExecutionOptions: sets (or with undefined clears) the versioning override,
   * writes WorkflowExecutionOptionsUpdated and reroutes the tasks not yet taken.
   */
  setVersioningOverride(override: Msg | undefined, identity: string): void {
    this.versioning = { ...this.versioning, override };
    const attrs = override ? { versioningOverride: override, identity } : { unsetVersioningOverride: true, identity };
    // Not an event the workflow acts on: written without a new workflow task (buffered while one runs).
    if (this.wt && this.wt.startedEventId > 0) {
      this.buffered.push({ attrField: 'workflowExecutionOptionsUpdatedEventAttributes', attrs });
      this.touch();
    } else {
      this.append('workflowExecutionOptionsUpdatedEventAttributes', attrs);
    }
    this.reroute();
  }

  // ---- close ----

  /** Writes the close event and releases everything the run holds. */
  close(status: number, attrField: string, attrs: Msg): void {
    if (!this.isOpen) return;
    this.append(attrField, attrs);
    this.status = status;
    this.closeTime = this.ns.clock.now();
    this.wt?.deadline?.cancel();
    this.wt = undefined;
    this.buffered = [];
    for (const d of this.deadlines) d.cancel();
    for (const t of this.timers.values()) t.deadline.cancel();
    this.timers.clear();
    for (const a of this.activities.values()) a.abandon();
    this.activities.clear();
    // A run that continued as new (or is retried) hands its updates not yet accepted to the next run.
    this.updates.close(this.nextRunId !== undefined);
    this.history.notify();
    this.ns.onClosed(this);
    this.queries.dispatch();
  }

  private timeOut(): void {
    if (!this.isOpen) return;
    this.close(Status.TIMED_OUT, 'workflowExecutionTimedOutEventAttributes', { retryState: RetryState.TIMEOUT });
  }

  terminate(reason: string, details: Msg | undefined, identity: string): void {
    this.close(Status.TERMINATED, 'workflowExecutionTerminatedEventAttributes', { reason, details, identity });
  }

  requestCancel(request: { cause?: string; identity?: string; external?: Msg }): void {
    if (this.cancelRequested) return;
    this.cancelRequested = true;
    this.record('workflowExecutionCancelRequestedEventAttributes', {
      cause: request.cause,
      identity: request.identity,
      externalInitiatedEventId: request.external?.initiatedEventId,
      externalWorkflowExecution: request.external?.execution,
    });
  }

  /** Children still attached when the parent closes get their parent-close policy applied. */
  childrenClosingWithParent(): Array<{ child: ChildRef; policy: number }> {
    const out: Array<{ child: ChildRef; policy: number }> = [];
    for (const child of this.children.values()) {
      const policy = child.parentClosePolicy || ParentClosePolicy.TERMINATE;
      if (policy !== ParentClosePolicy.ABANDON) out.push({ child, policy });
    }
    return out;
  }

  // ---- activities ----

  get ownerPriority(): Msg | undefined {
    return this.options.priority;
  }

  activityToken(scheduledEventId: number, attempt: number): TaskToken {
    return this.token('at', scheduledEventId, attempt);
  }

  activityTaskOwner(): Msg {
    return { workflowNamespace: this.ns.name, workflowType: this.options.workflowType, workflowExecution: this.ref };
  }

  addActivity(activity: PendingActivity): void {
    this.activities.set(activity.scheduledEventId, activity);
  }

  /** Activities of this run queued or executing (each holds time skipping back). */
  get runningActivityCount(): number {
    let n = 0;
    for (const a of this.activities.values()) if (a.isRunnable) n++;
    return n;
  }
}

function isCloseCommand(c: Msg): boolean {
  return Boolean(
    c.completeWorkflowExecutionCommandAttributes ||
      c.failWorkflowExecutionCommandAttributes ||
      c.cancelWorkflowExecutionCommandAttributes ||
      c.continueAsNewWorkflowExecutionCommandAttributes,
  );
}

/** Runs deferred work; a failure there is a server bug, logged rather than crashing the process. */
function guarded(what: string, f: () => void): void {
  try {
    f();
  } catch (err) {
    console.error(`temporal-dev: ${what} failed`, err);
  }
}
