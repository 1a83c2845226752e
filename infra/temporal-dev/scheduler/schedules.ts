// Schedules, after Temporal's scheduler workflow: the WorkflowService schedule calls, actions
// taken on the virtual clock (catch-up window, overlap policies with a buffer, pause-on-failure,
// limited actions), triggers and backfills, and the scheduler-workflow rows that visibility lists
// under TemporalNamespaceDivision = 'TemporalScheduler'.
//
// All state is plain JSON (protobuf messages in their JSON form: bytes as base64, int64 as
// numbers), one collection per namespace, so the persistence layer can save it with
// `exportState()`, restore it with `importState()` and then call `rearm()`.
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type { Deadline } from '../common/clock.ts';
import { IdReusePolicy, ScheduleOverlap, Status } from '../common/enums.ts';
import { alreadyExists, invalidArgument, notFound, requireField, ServiceError } from '../common/errors.ts';
import { decodeMessage, encodeMessage, lookupType, type Msg } from '../common/proto.ts';
import { searchAttributesError, withTypes } from '../common/search-attributes.ts';
import { msToProto, protoToMs } from '../common/time.ts';
import type { Execution } from '../history/workflow-execution.ts';
import type { StartsHost } from '../history/workflow-starts.ts';
import { pageOf, payloadValue, queryRows, type Value, type VisibilityRow } from '../visibility/query.ts';
import { type CompiledSpec, canonicalizeSpec, cleanSpec, compileSpec, SpecError } from './schedule-spec.ts';

// Temporal's scheduler constants.
const SCHEDULER_ID_PREFIX = 'temporal-sys-scheduler:';
const SCHEDULER_WORKFLOW_TYPE = 'temporal-sys-scheduler-workflow';
const SCHEDULER_TASK_QUEUE = 'temporal-sys-per-ns-tq';
const NAMESPACE_DIVISION = 'TemporalScheduler';
const LIST_QUERY = `TemporalNamespaceDivision = '${NAMESPACE_DIVISION}' AND ExecutionStatus = 'Running'`;
const DEFAULT_CATCHUP_WINDOW_MS = 365 * 24 * 3600_000;
const MIN_CATCHUP_WINDOW_MS = 10_000;
const MAX_BUFFER = 1000;
const RECENT_ACTIONS = 10;
const FUTURE_ACTIONS = 10;
const LIST_RECENT_ACTIONS = 5;
const LIST_FUTURE_ACTIONS = 5;
const LIST_SPEC_ITEMS = 10;
const MAX_MATCHING_TIMES = 1000;

const T = {
  schedule: 'temporal.api.schedule.v1.Schedule',
  memo: 'temporal.api.common.v1.Memo',
  searchAttributes: 'temporal.api.common.v1.SearchAttributes',
  payloads: 'temporal.api.common.v1.Payloads',
  failure: 'temporal.api.failure.v1.Failure',
  newWorkflow: 'temporal.api.workflow.v1.NewWorkflowExecutionInfo',
};

export interface BufferedStart {
  nominal: number;
  actual: number;
  /** UNSPECIFIED means the schedule's policy at the time the start is taken. */
  overlapPolicy: number;
  /** Trigger or backfill: not subject to pause, action limits or the catch-up window. */
  manual: boolean;
}

export interface ActionResult {
  scheduleTime: number;
  actualTime: number;
  workflowId: string;
  runId: string;
  status: number;
}

/** One schedule. Times are epoch milliseconds of the server's (virtual) clock. */
export interface ScheduleRecord {
  scheduleId: string;
  /** Run id of the scheduler workflow as visibility shows it. */
  schedulerRunId: string;
  /** temporal.api.schedule.v1.Schedule (JSON form): canonical spec, resolved policies, state. */
  schedule: Msg;
  memo: Msg | null;
  /** The schedule's own custom search attributes (JSON form). */
  searchAttributes: Msg | null;
  createTime: number;
  updateTime: number | null;
  conflictToken: number;
  /** Scheduled times up to here have been handled. */
  lastProcessedTime: number;
  actionCount: number;
  missedCatchupWindow: number;
  overlapSkipped: number;
  bufferDropped: number;
  /** Workflows started by non-overlapping actions and still running (id and first run id). */
  runningWorkflows: Array<{ workflowId: string; runId: string }>;
  recentActions: ActionResult[];
  buffer: BufferedStart[];
  /** Handed to the next started workflow (Payloads / Failure, JSON form). */
  lastCompletionResult: Msg | null;
  continuedFailure: Msg | null;
  /** Request id of the create call, so a retried create succeeds. */
  createRequestId: string;
}

/** A namespace's schedule state: plain JSON. */
export interface SchedulesState {
  schedules: Record<string, ScheduleRecord>;
}

/** What schedules need of their namespace (namespace/registry.ts implements it): its clock, starts and current runs. */
export interface ScheduleHost extends Pick<StartsHost, 'name' | 'clock' | 'searchAttributeTypes' | 'starts' | 'current'> {
  /** Marks the namespace's state (schedules are part of it) as changed. */
  touch(): void;
}

export class Schedules {
  private readonly ns: ScheduleHost;
  private state: SchedulesState = { schedules: {} };
  // Runtime only, rebuilt from the state: wake-ups on the virtual clock and compiled specs.
  private readonly timers = new Map<string, Deadline>();
  private readonly specs = new Map<string, CompiledSpec>();

  constructor(ns: ScheduleHost) {
    this.ns = ns;
  }

  // ---- persistence hooks ----

  /** A deep copy of all schedule state, JSON-serialisable. */
  exportState(): SchedulesState {
    return structuredClone(this.state);
  }

  /** Replaces the state (as exportState gave it); call rearm() once executions are loaded too. */
  importState(state: SchedulesState): void {
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
    this.specs.clear();
    this.state = structuredClone(state);
  }

  /**
   * After a load: notes started workflows that closed meanwhile, takes the actions that came due
   * while the server was down (within each catch-up window) and sets the next wake-ups.
   */
  rearm(): void {
    for (const r of Object.values(this.state.schedules)) {
      for (const w of [...r.runningWorkflows]) {
        const exec = this.ns.current(w.workflowId);
        if (exec?.options.firstRunId !== w.runId) r.runningWorkflows = r.runningWorkflows.filter((x) => x !== w);
        else if (!exec.isOpen) this.noteClosed(r, exec);
      }
      this.advance(r);
      this.settle(r);
    }
  }

  // ---- RPCs ----

  create(req: Msg): Msg {
    const scheduleId = requireField<string>(req.scheduleId, 'ScheduleId');
    const requestId = requireField<string>(req.requestId, 'RequestId');
    const existing = this.state.schedules[scheduleId];
    if (existing) {
      if (existing.createRequestId === requestId) return { conflictToken: tokenBytes(existing.conflictToken) };
      throw alreadyExists(`schedule "${scheduleId}" is already registered`);
    }
    const schedule = this.validSchedule(req.schedule);
    const now = this.now();
    const r: ScheduleRecord = {
      scheduleId,
      schedulerRunId: randomUUID(),
      schedule,
      memo: hasFields(req.memo?.fields) ? toJson(T.memo, req.memo) : null,
      searchAttributes: this.customSearchAttributes(req.searchAttributes),
      createTime: now,
      updateTime: null,
      conflictToken: 1,
      lastProcessedTime: now,
      actionCount: 0,
      missedCatchupWindow: 0,
      overlapSkipped: 0,
      bufferDropped: 0,
      runningWorkflows: [],
      recentActions: [],
      buffer: [],
      lastCompletionResult: null,
      continuedFailure: null,
      createRequestId: requestId,
    };
    this.state.schedules[scheduleId] = r;
    if (req.initialPatch) this.applyPatch(r, req.initialPatch);
    this.settle(r);
    return { conflictToken: tokenBytes(r.conflictToken) };
  }

  describe(req: Msg): Msg {
    const r = this.get(req.scheduleId);
    return {
      schedule: { ...r.schedule, spec: cleanSpec(r.schedule.spec) },
      info: {
        actionCount: r.actionCount,
        missedCatchupWindow: r.missedCatchupWindow,
        overlapSkipped: r.overlapSkipped,
        bufferDropped: r.bufferDropped,
        bufferSize: r.buffer.length,
        runningWorkflows: r.runningWorkflows,
        recentActions: r.recentActions.map(actionResultProto),
        futureActionTimes: this.futureTimes(r, FUTURE_ACTIONS).map(msToProto),
        createTime: msToProto(r.createTime),
        updateTime: r.updateTime === null ? undefined : msToProto(r.updateTime),
      },
      memo: r.memo ?? undefined,
      searchAttributes: r.searchAttributes ?? undefined,
      conflictToken: tokenBytes(r.conflictToken),
    };
  }

  update(req: Msg): Msg {
    const r = this.get(req.scheduleId);
    if (req.conflictToken?.length >= 8 && readToken(req.conflictToken) !== r.conflictToken) {
      throw new ServiceError(status.FAILED_PRECONDITION, 'mismatched conflict token');
    }
    const schedule = this.validSchedule(req.schedule);
    this.advance(r);
    r.schedule = schedule;
    this.specs.delete(r.scheduleId);
    // Absent search attributes leave them as they are; a present (even empty) set replaces them.
    if (req.searchAttributes) r.searchAttributes = this.customSearchAttributes(req.searchAttributes);
    if (req.memo) r.memo = hasFields(req.memo.fields) ? toJson(T.memo, req.memo) : null;
    r.updateTime = this.now();
    r.conflictToken++;
    // Times before the update that jitter pushed past now are still due; earlier ones are dropped.
    this.advance(r);
    this.settle(r);
    return {};
  }

  patch(req: Msg): Msg {
    const r = this.get(req.scheduleId);
    if (!req.patch) throw invalidArgument('Patch is not set on request.');
    // Time elapsed so far is handled under the old state (e.g. still paused).
    this.advance(r);
    this.applyPatch(r, req.patch);
    this.settle(r);
    return {};
  }

  delete(req: Msg): Msg {
    const r = this.get(req.scheduleId);
    this.timers.get(r.scheduleId)?.cancel();
    this.timers.delete(r.scheduleId);
    this.specs.delete(r.scheduleId);
    delete this.state.schedules[r.scheduleId];
    this.ns.touch();
    return {};
  }

  list(req: Msg): Msg {
    const { page, nextPageToken } = pageOf(this.matching(req.query), req.nextPageToken, req.maximumPageSize);
    return {
      schedules: page.map(({ record: r }) => ({
        scheduleId: r.scheduleId,
        memo: r.memo ?? undefined,
        searchAttributes: r.searchAttributes ?? undefined,
        info: {
          spec: listSpec(r.schedule.spec),
          workflowType: r.schedule.action?.startWorkflow?.workflowType,
          notes: r.schedule.state?.notes ?? '',
          paused: r.schedule.state?.paused ?? false,
          recentActions: r.recentActions.slice(-LIST_RECENT_ACTIONS).map(actionResultProto),
          futureActionTimes: this.futureTimes(r, LIST_FUTURE_ACTIONS).map(msToProto),
        },
      })),
      nextPageToken,
    };
  }

  count(req: Msg): Msg {
    return { count: this.matching(req.query).length };
  }

  /** Schedules matching a List/Count query, which applies to their scheduler workflows' rows. */
  private matching(query: string | undefined) {
    return queryRows(this.ns, this.visibilityRows(), query?.trim() ? `${LIST_QUERY} AND (${query})` : LIST_QUERY);
  }

  matchingTimes(req: Msg): Msg {
    const r = this.get(req.scheduleId);
    const start = protoToMs(req.startTime);
    const end = protoToMs(req.endTime);
    if (start === undefined || end === undefined) throw invalidArgument('missing or invalid query');
    const spec = this.spec(r);
    const times: number[] = [];
    for (let t = spec.next(start); t && t.next <= end && times.length < MAX_MATCHING_TIMES; t = spec.next(t.next)) times.push(t.next);
    return { startTime: times.map(msToProto) };
  }

  /** Each schedule as its scheduler workflow, newest first, for visibility queries. */
  visibilityRows(): Array<VisibilityRow & { record: ScheduleRecord }> {
    return Object.values(this.state.schedules)
      .sort((a, b) => b.createTime - a.createTime)
      .map((r) => ({ record: r, value: (field: string) => schedulerValue(r, field), info: () => schedulerInfo(r) }));
  }

  /** A run closed: if it ends a workflow a schedule started, the schedule reacts (buffer, pause-on-failure). */
  onWorkflowClosed(exec: Execution): void {
    // Retries and continue-as-new keep the chain (and the schedule's view of it) running.
    if (exec.nextRunId !== undefined) return;
    for (const r of Object.values(this.state.schedules)) {
      if (this.noteClosed(r, exec)) {
        // Deferred: the close may happen inside our own terminate call.
        queueMicrotask(() =>
          guarded(() => {
            if (this.state.schedules[r.scheduleId] !== r) return;
            this.advance(r);
            this.settle(r);
          }),
        );
      }
    }
  }

  // ---- taking actions ----

  private now(): number {
    return this.ns.clock.now();
  }

  private get(scheduleId: string | undefined): ScheduleRecord {
    const r = this.state.schedules[requireField<string>(scheduleId, 'ScheduleId')];
    if (!r) throw notFound('schedule not found');
    return r;
  }

  private spec(r: ScheduleRecord): CompiledSpec {
    let spec = this.specs.get(r.scheduleId);
    if (!spec) {
      spec = compileSpec(r.schedule.spec ?? {}, `${this.ns.name}-${r.scheduleId}`);
      this.specs.set(r.scheduleId, spec);
    }
    return spec;
  }

  /** validSchedule, plus Temporal's check of the search attributes the action's workflows get. */
  private validSchedule(schedule: Msg | undefined): Msg {
    const fields = schedule?.action?.startWorkflow?.searchAttributes?.indexedFields;
    const invalid = searchAttributesError(this.ns, fields);
    if (invalid) throw invalidArgument(invalid);
    if (!fields) return validSchedule(schedule);
    // Stored with their types, as Temporal does: Describe's typed search attributes of the action
    // then include those given untyped (the SDK's legacy `searchAttributes`).
    const start = { ...schedule?.action?.startWorkflow, searchAttributes: { indexedFields: withTypes(this.ns, fields) } };
    return validSchedule({ ...schedule, action: { ...schedule?.action, startWorkflow: start } });
  }

  private customSearchAttributes(sa: Msg | undefined): Msg | null {
    const fields: Record<string, Msg> = sa?.indexedFields ?? {};
    if (!hasFields(fields)) return null;
    const invalid = searchAttributesError(this.ns, fields);
    if (invalid) throw invalidArgument(invalid);
    return toJson(T.searchAttributes, { indexedFields: withTypes(this.ns, fields) });
  }

  /** Handles the scheduled times between the last processed one and now. */
  private advance(r: ScheduleRecord): void {
    const end = Math.max(this.now(), r.lastProcessedTime);
    r.lastProcessedTime = this.processTimeRange(r, r.lastProcessedTime, end, ScheduleOverlap.UNSPECIFIED, false);
  }

  /**
   * Adds the starts for the times in (start, end] to the buffer; returns the last time handled.
   * Scheduled (not manual) times are skipped while paused or out of actions, and counted as
   * missed when older than the catch-up window.
   */
  private processTimeRange(r: ScheduleRecord, start: number, end: number, overlapPolicy: number, manual: boolean): number {
    if (!manual && !canTakeAction(r, false)) return end;
    const spec = this.spec(r);
    const catchupWindow = catchupWindowMs(r);
    let last = start;
    for (let t = spec.next(start); t && t.next <= end; t = spec.next(t.next)) {
      last = t.next;
      // After an update, times before it belong to the old spec.
      if (!manual && r.updateTime !== null && r.updateTime > t.next) continue;
      if (!manual && end - t.next > catchupWindow) {
        r.missedCatchupWindow++;
        continue;
      }
      if (r.buffer.length >= MAX_BUFFER) r.bufferDropped++;
      else r.buffer.push({ nominal: t.nominal, actual: t.next, overlapPolicy, manual });
    }
    return last;
  }

  private applyPatch(r: ScheduleRecord, patch: Msg): void {
    if (patch.triggerImmediately) {
      const at = protoToMs(patch.triggerImmediately.scheduledTime) ?? this.now();
      r.buffer.push({ nominal: at, actual: at, overlapPolicy: patch.triggerImmediately.overlapPolicy ?? 0, manual: true });
    }
    for (const backfill of patch.backfillRequest ?? []) {
      // The start time is inclusive.
      const start = (protoToMs(backfill.startTime) ?? 0) - 1;
      this.processTimeRange(r, start, protoToMs(backfill.endTime) ?? 0, backfill.overlapPolicy ?? 0, true);
    }
    const state = r.schedule.state;
    if (patch.pause) {
      state.paused = true;
      state.notes = patch.pause;
      r.conflictToken++;
    }
    if (patch.unpause) {
      state.paused = false;
      state.notes = patch.unpause;
      r.conflictToken++;
    }
  }

  /** Takes the buffered starts that may run now, then sets the next wake-up. */
  private settle(r: ScheduleRecord): void {
    // Every change of a schedule ends here (or in delete): the namespace row is rewritten.
    this.ns.touch();
    while (this.processBuffer(r)) {
      // Again: a start that could not be taken left the buffer, others may now go.
    }
    this.timers.get(r.scheduleId)?.cancel();
    this.timers.delete(r.scheduleId);
    // Paused or out of actions: nothing to wake up for until a patch or update.
    if (!canTakeAction(r, false)) return;
    const next = this.spec(r).next(r.lastProcessedTime);
    if (!next) return;
    const id = r.scheduleId;
    this.timers.set(
      id,
      this.ns.clock.schedule(next.next, () =>
        guarded(() => {
          const current = this.state.schedules[id];
          if (!current) return;
          this.advance(current);
          this.settle(current);
        }),
      ),
    );
  }

  /** Applies the overlap policies to the buffer, as Temporal's scheduler does. Returns true to go again. */
  private processBuffer(r: ScheduleRecord): boolean {
    const action = r.schedule.action?.startWorkflow;
    if (!action || r.buffer.length === 0) {
      r.buffer = [];
      return false;
    }
    const resolve = (p: number) => p || r.schedule.policies?.overlapPolicy || ScheduleOverlap.SKIP;
    const isRunning = r.runningWorkflows.length > 0;
    const overlapping: BufferedStart[] = [];
    const remaining: BufferedStart[] = [];
    let single: BufferedStart | undefined;
    let cancel = false;
    let terminate = false;
    for (const start of r.buffer) {
      const policy = resolve(start.overlapPolicy);
      if (policy === ScheduleOverlap.ALLOW_ALL) overlapping.push(start);
      else if (!isRunning && !single) single = start;
      else if (policy === ScheduleOverlap.SKIP) r.overlapSkipped++;
      else if (policy === ScheduleOverlap.BUFFER_ONE) {
        if (remaining.length === 0) remaining.push(start);
        else r.overlapSkipped++;
      } else if (policy === ScheduleOverlap.BUFFER_ALL) remaining.push(start);
      else if (policy === ScheduleOverlap.CANCEL_OTHER || policy === ScheduleOverlap.TERMINATE_OTHER) {
        if (isRunning) {
          // Started once the running one has closed.
          remaining.push(start);
          if (policy === ScheduleOverlap.CANCEL_OTHER) cancel = true;
          else terminate = true;
        } else single = start;
      }
    }
    r.buffer = remaining;
    // Overlapping runs would be cancelled or terminated right away too.
    const starts = cancel || terminate ? [] : overlapping;
    if (single) starts.push(single);
    let again = false;
    for (const start of starts) {
      if (!canTakeAction(r, start.manual, true)) {
        again = true;
        continue;
      }
      const result = this.startWorkflow(r, start, action);
      if (!result) {
        again = true;
        continue;
      }
      r.actionCount++;
      r.recentActions = [...r.recentActions, result].slice(-RECENT_ACTIONS);
      // ALLOW_ALL runs are not tracked: they never block other starts.
      if (start === single) r.runningWorkflows.push({ workflowId: result.workflowId, runId: result.runId });
    }
    if (terminate || cancel) {
      for (const w of [...r.runningWorkflows]) {
        const exec = this.ns.current(w.workflowId);
        if (!exec?.isOpen || exec.options.firstRunId !== w.runId) continue;
        if (terminate) exec.terminate('terminated by schedule overlap policy', undefined, this.identity(r));
        else exec.requestCancel({ cause: 'cancelled by schedule overlap policy', identity: this.identity(r) });
      }
    }
    return again;
  }

  private identity(r: ScheduleRecord): string {
    return `temporal-scheduler-${this.ns.name}-${r.scheduleId}`;
  }

  /** Starts the action's workflow with id `<workflowId>-<scheduled time>`; undefined when the start is refused. */
  private startWorkflow(r: ScheduleRecord, start: BufferedStart, action: Msg): ActionResult | undefined {
    const info = fromJson(T.newWorkflow, action);
    const nominal = Math.floor(start.nominal / 1000) * 1000;
    const workflowId = r.schedule.policies?.keepOriginalWorkflowId ? info.workflowId : `${info.workflowId}-${rfc3339(nominal)}`;
    const allowAll = (start.overlapPolicy || r.schedule.policies?.overlapPolicy) === ScheduleOverlap.ALLOW_ALL;
    const request: Msg = {
      workflowId,
      workflowType: info.workflowType,
      taskQueue: info.taskQueue,
      input: info.input,
      workflowExecutionTimeout: info.workflowExecutionTimeout,
      workflowRunTimeout: info.workflowRunTimeout,
      workflowTaskTimeout: info.workflowTaskTimeout,
      identity: this.identity(r),
      requestId: randomUUID(),
      // Scheduled starts never repeat a workflow id; triggers and backfills may.
      workflowIdReusePolicy: start.manual ? IdReusePolicy.ALLOW_DUPLICATE : IdReusePolicy.REJECT_DUPLICATE,
      retryPolicy: info.retryPolicy,
      memo: info.memo,
      searchAttributes: {
        indexedFields: {
          ...info.searchAttributes?.indexedFields,
          TemporalScheduledStartTime: searchAttributePayload('Datetime', new Date(nominal).toISOString()),
          TemporalScheduledById: searchAttributePayload('Keyword', r.scheduleId),
        },
      },
      header: info.header,
      // ALLOW_ALL runs take no part in the chain of results.
      lastCompletionResult: allowAll || !r.lastCompletionResult ? undefined : fromJson(T.payloads, r.lastCompletionResult),
      continuedFailure: allowAll || !r.continuedFailure ? undefined : fromJson(T.failure, r.continuedFailure),
    };
    try {
      const { exec } = this.ns.starts.start(request);
      return { scheduleTime: start.actual, actualTime: exec.startTime, workflowId, runId: exec.runId, status: Status.RUNNING };
    } catch (err) {
      // E.g. the id is taken: Temporal drops the start too.
      if (err instanceof ServiceError) return undefined;
      throw err;
    }
  }

  /** Records the close of a workflow this schedule started; true when it was one it waits for. */
  private noteClosed(r: ScheduleRecord, exec: Execution): boolean {
    const firstRunId = exec.options.firstRunId;
    for (const a of r.recentActions) if (a.workflowId === exec.workflowId && a.runId === firstRunId) a.status = exec.status;
    const i = r.runningWorkflows.findIndex((w) => w.workflowId === exec.workflowId && w.runId === firstRunId);
    if (i < 0) return false;
    r.runningWorkflows.splice(i, 1);
    const close = exec.history.events[exec.history.events.length - 1] ?? {};
    const state = r.schedule.state;
    const failed = exec.status === Status.FAILED || exec.status === Status.TIMED_OUT;
    if (r.schedule.policies?.pauseOnFailure && failed && !state.paused) {
      state.paused = true;
      state.notes =
        exec.status === Status.FAILED
          ? `paused due to workflow failure: ${exec.workflowId}: ${close.workflowExecutionFailedEventAttributes?.failure?.message ?? ''}`
          : `paused due to workflow timeout: ${exec.workflowId}`;
      r.conflictToken++;
    }
    const result = close.workflowExecutionCompletedEventAttributes?.result;
    const failure = close.workflowExecutionFailedEventAttributes?.failure;
    if (result) {
      r.lastCompletionResult = toJson(T.payloads, result);
      r.continuedFailure = null;
    } else if (failure) r.continuedFailure = toJson(T.failure, failure);
    return true;
  }

  /** The next action times from the last processed one, honouring the action limit and the update time. */
  private futureTimes(r: ScheduleRecord, count: number): number[] {
    const state = r.schedule.state ?? {};
    const n = state.limitedActions ? Math.min(count, Number(state.remainingActions ?? 0)) : count;
    const spec = this.spec(r);
    const out: number[] = [];
    for (let t = spec.next(r.lastProcessedTime); t && out.length < n; t = spec.next(t.next)) {
      if (r.updateTime === null || r.updateTime <= t.next) out.push(t.next);
    }
    return out;
  }
}

/** Whether a start may be taken now; with `decrement`, it uses up one of the limited actions. */
function canTakeAction(r: ScheduleRecord, manual: boolean, decrement = false): boolean {
  if (manual) return true;
  const state = r.schedule.state ?? {};
  if (state.paused) return false;
  if (!state.limitedActions) return true;
  if (Number(state.remainingActions ?? 0) <= 0) return false;
  if (decrement) {
    state.remainingActions = Number(state.remainingActions) - 1;
    r.conflictToken++;
  }
  return true;
}

function catchupWindowMs(r: ScheduleRecord): number {
  return Math.max(protoToMs(r.schedule.policies?.catchupWindow) ?? DEFAULT_CATCHUP_WINDOW_MS, MIN_CATCHUP_WINDOW_MS);
}

/** Validates a Create/Update request's schedule and returns it as stored (JSON form, canonical spec, resolved policies). */
function validSchedule(schedule: Msg | undefined): Msg {
  let spec: Msg;
  try {
    spec = canonicalizeSpec(schedule?.spec);
  } catch (err) {
    if (err instanceof SpecError) throw invalidArgument(`Invalid schedule spec: ${err.message}`);
    throw err;
  }
  const start = schedule?.action?.startWorkflow;
  if (start) {
    requireField(start.workflowId, 'WorkflowId');
    requireField(start.workflowType?.name, 'WorkflowType');
    requireField(start.taskQueue?.name, 'TaskQueue');
    if (start.cronSchedule) throw invalidArgument('Scheduled workflow must not contain CronSchedule');
    const reuse = start.workflowIdReusePolicy ?? 0;
    if (reuse !== IdReusePolicy.UNSPECIFIED && reuse !== IdReusePolicy.ALLOW_DUPLICATE) {
      throw invalidArgument('Scheduled workflow must not contain WorkflowIDReusePolicy');
    }
  }
  const policies = schedule?.policies ?? {};
  const stored = toJson(T.schedule, {
    spec,
    action: schedule?.action,
    policies: {
      ...policies,
      // Defaults are resolved eagerly so that Describe shows them.
      overlapPolicy: policies.overlapPolicy || ScheduleOverlap.SKIP,
      catchupWindow: msToProto(Math.max(protoToMs(policies.catchupWindow) ?? DEFAULT_CATCHUP_WINDOW_MS, MIN_CATCHUP_WINDOW_MS)),
    },
    state: schedule?.state ?? {},
  });
  stored.state ??= {};
  return stored;
}

/** ScheduleListInfo's spec: cleaned, at most ten of each list (Temporal trims the memo it lists from). */
function listSpec(spec: Msg): Msg {
  const clean = cleanSpec(spec);
  return {
    ...clean,
    structuredCalendar: clean.structuredCalendar.slice(0, LIST_SPEC_ITEMS),
    excludeStructuredCalendar: clean.excludeStructuredCalendar.slice(0, LIST_SPEC_ITEMS),
    interval: (clean.interval ?? []).slice(0, LIST_SPEC_ITEMS),
  };
}

function schedulerValue(r: ScheduleRecord, field: string): Value {
  switch (field) {
    case 'WorkflowId':
      return SCHEDULER_ID_PREFIX + r.scheduleId;
    case 'RunId':
      return r.schedulerRunId;
    case 'WorkflowType':
      return SCHEDULER_WORKFLOW_TYPE;
    case 'ExecutionStatus':
      return 'Running';
    case 'TaskQueue':
      return SCHEDULER_TASK_QUEUE;
    case 'StartTime':
    case 'ExecutionTime':
      return r.createTime;
    case 'CloseTime':
      return null;
    case 'HistoryLength':
      return 0;
    case 'TemporalNamespaceDivision':
      return NAMESPACE_DIVISION;
    case 'TemporalSchedulePaused':
      return r.schedule.state?.paused === true;
    default: {
      const p = r.searchAttributes?.indexedFields?.[field];
      return p ? payloadValue({ data: Buffer.from(p.data ?? '', 'base64') }) : null;
    }
  }
}

function schedulerInfo(r: ScheduleRecord): Msg {
  const execution = { workflowId: SCHEDULER_ID_PREFIX + r.scheduleId, runId: r.schedulerRunId };
  const custom = r.searchAttributes ? fromJson(T.searchAttributes, r.searchAttributes).indexedFields : {};
  return {
    execution,
    type: { name: SCHEDULER_WORKFLOW_TYPE },
    startTime: msToProto(r.createTime),
    executionTime: msToProto(r.createTime),
    status: Status.RUNNING,
    memo: r.memo ?? undefined,
    searchAttributes: {
      indexedFields: {
        ...custom,
        TemporalNamespaceDivision: searchAttributePayload('Keyword', NAMESPACE_DIVISION),
        TemporalSchedulePaused: searchAttributePayload('Bool', r.schedule.state?.paused === true),
      },
    },
    taskQueue: SCHEDULER_TASK_QUEUE,
    rootExecution: execution,
    firstRunId: r.schedulerRunId,
  };
}

function actionResultProto(a: ActionResult): Msg {
  return {
    scheduleTime: msToProto(a.scheduleTime),
    actualTime: msToProto(a.actualTime),
    startWorkflowResult: { workflowId: a.workflowId, runId: a.runId },
    startWorkflowStatus: a.status,
  };
}

function searchAttributePayload(type: string, value: unknown): Msg {
  return {
    metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from(type) },
    data: Buffer.from(JSON.stringify(value)),
  };
}

/** RFC 3339 in UTC without fractions, as Go formats the time in a scheduled workflow's id. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function hasFields(fields: Record<string, unknown> | null | undefined): boolean {
  return Object.keys(fields ?? {}).length > 0;
}

function tokenBytes(token: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(token));
  return b;
}

function readToken(bytes: Uint8Array): number {
  return Number(Buffer.from(bytes).readBigUInt64BE(0));
}

// Messages are stored in their JSON form (bytes as base64) and decoded again where the server needs them.
const JSON_FORM = { longs: Number, enums: Number, bytes: String, defaults: false };

function toJson(typeName: string, message: Msg): Msg {
  const type = lookupType(typeName);
  return type.toObject(type.fromObject(message), JSON_FORM);
}

function fromJson(typeName: string, json: Msg): Msg {
  const type = lookupType(typeName);
  return decodeMessage(type, encodeMessage(type, json));
}

/** Runs clock and microtask callbacks; a failure there is a server bug, logged rather than crashing the process. */
function guarded(f: () => void): void {
  try {
    f();
  } catch (err) {
    console.error('temporal-dev: schedule processing failed', err);
  }
}
