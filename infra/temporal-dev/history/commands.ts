// Applies the commands of a completed workflow task, in order, as history events.

import type { Deadline } from '../common/clock.ts';
import { Status, TaskQueueKind, WorkflowTaskFailedCause } from '../common/enums.ts';
import type { Limits } from '../common/limits.ts';
import { blobTooLarge, memoTooLarge, payloadMapSize, protoSize } from '../common/limits.ts';
import type { Msg } from '../common/proto.ts';
import { withRetryDefaults } from '../common/retry.ts';
import { isUnset, searchAttributesError, withTypes } from '../common/search-attributes.ts';
import { msToProto, protoToMs } from '../common/time.ts';
import { type ActivityHost, type ActivityOwner, PendingActivity } from './activity-tasks.ts';

/** The starts and messages to other runs that commands make (workflow-starts.ts), for runs of type `R`. */
export interface CommandStarts<R> {
  failWorkflow(exec: R, failure: Msg | undefined, completedEventId: number): void;
  continueAsNew(exec: R, attrs: Msg, completedEventId: number): void;
  startChild(parent: R, initiatedEventId: number, attrs: Msg, userMetadata: Msg | undefined): void;
  signalExternal(source: R, initiatedEventId: number, attrs: Msg): void;
  cancelExternal(source: R, initiatedEventId: number, attrs: Msg): void;
}

/** What commands use of the namespace of a run of type `R`. */
export interface CommandNamespace<R> extends ActivityHost {
  readonly name: string;
  readonly limits: Limits;
  readonly searchAttributeTypes: ReadonlyMap<string, number>;
  readonly starts: CommandStarts<R>;
}

/** What commands need of the run they apply to (workflow-execution.ts implements it). */
export interface CommandTarget extends ActivityOwner {
  readonly ns: CommandNamespace<this>;
  readonly options: { readonly taskQueue: string; readonly workflowType: Msg; readonly runTimeoutMs?: number };
  readonly isOpen: boolean;
  readonly timers: Map<string, { startedEventId: number; deadline: Deadline }>;
  memo: Record<string, Msg>;
  searchAttributes: Record<string, Msg>;
  readonly updates: { apply(message: Msg): void };
  close(status: number, attrField: string, attrs: Msg): void;
  startTimer(timerId: string, startedEventId: number, at: number): void;
  addActivity(activity: PendingActivity): void;
  append(attrField: string, attrs: Msg, command?: Msg): Msg;
}

export interface CommandRejection {
  cause: number;
  /** Temporal's failure message: `<Cause>: <reason>`. */
  message: string;
  /** Oversized payloads: Temporal fails the task and terminates the run. */
  terminate?: boolean;
}

const Cause = WorkflowTaskFailedCause;
const PAYLOADS = 'temporal.api.common.v1.Payloads';

/** The cause as Temporal's messages print it: BAD_SEARCH_ATTRIBUTES is "BadSearchAttributes". */
function causeName(cause: number): string {
  const key = Object.entries(Cause).find(([, v]) => v === cause)?.[0] ?? 'UNSPECIFIED';
  return key.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
}

function rejection(cause: number, reason: string, terminate = false): CommandRejection {
  return { cause, message: `${causeName(cause)}: ${reason}`, terminate };
}

/**
 * The payload of each command Temporal measures against the blob size limit, the cause it fails
 * the task with (its own choice: an oversized completion result is BAD_SCHEDULE_ACTIVITY_ATTRIBUTES
 * there too) and its message.
 */
const PAYLOAD_CHECKS: Array<[field: string, size: (a: Msg) => number, cause: number, reason: string]> = [
  [
    'scheduleActivityTaskCommandAttributes',
    (a) => protoSize(PAYLOADS, a.input),
    Cause.BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
    'ScheduleActivityTaskCommandAttributes.Input exceeds size limit.',
  ],
  [
    'completeWorkflowExecutionCommandAttributes',
    (a) => protoSize(PAYLOADS, a.result),
    Cause.BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
    'CompleteWorkflowExecutionCommandAttributes.Result exceeds size limit.',
  ],
  [
    'failWorkflowExecutionCommandAttributes',
    (a) => protoSize('temporal.api.failure.v1.Failure', a.failure),
    Cause.BAD_FAIL_WORKFLOW_EXECUTION_ATTRIBUTES,
    'FailWorkflowExecutionCommandAttributes.Failure exceeds size limit.',
  ],
  [
    'recordMarkerCommandAttributes',
    (a) =>
      Object.entries((a.details ?? {}) as Record<string, Msg>).reduce((n, [k, p]) => n + Buffer.byteLength(k) + protoSize(PAYLOADS, p), 0),
    Cause.BAD_RECORD_MARKER_ATTRIBUTES,
    'RecordMarkerCommandAttributes.Details exceeds size limit.',
  ],
  [
    'continueAsNewWorkflowExecutionCommandAttributes',
    (a) => protoSize(PAYLOADS, a.input),
    Cause.BAD_CONTINUE_AS_NEW_ATTRIBUTES,
    'ContinueAsNewWorkflowExecutionCommandAttributes. Input exceeds size limit.',
  ],
  [
    'startChildWorkflowExecutionCommandAttributes',
    (a) => protoSize(PAYLOADS, a.input),
    Cause.BAD_START_CHILD_EXECUTION_ATTRIBUTES,
    'StartChildWorkflowExecutionCommandAttributes. Input exceeds size limit.',
  ],
  [
    'signalExternalWorkflowExecutionCommandAttributes',
    (a) => protoSize(PAYLOADS, a.input),
    Cause.BAD_SIGNAL_WORKFLOW_EXECUTION_ATTRIBUTES,
    'SignalExternalWorkflowExecutionCommandAttributes.Input exceeds size limit.',
  ],
  [
    'upsertWorkflowSearchAttributesCommandAttributes',
    (a) => payloadMapSize(a.searchAttributes?.indexedFields),
    Cause.BAD_SEARCH_ATTRIBUTES,
    'UpsertWorkflowSearchAttributesCommandAttributes exceeds size limit.',
  ],
  [
    'modifyWorkflowPropertiesCommandAttributes',
    (a) => payloadMapSize(a.upsertedMemo?.fields),
    Cause.BAD_MODIFY_WORKFLOW_PROPERTIES_ATTRIBUTES,
    'ModifyWorkflowPropertiesCommandAttributes exceeds size limit.',
  ],
];

/** Checks commands (and update messages) before any is applied, as Temporal fails the whole task on a bad one. */
export function validateCommands(exec: CommandTarget, commands: Msg[], messages: Msg[]): CommandRejection | undefined {
  const ns = exec.ns;
  const limits = ns.limits;
  for (const m of messages) {
    if (blobTooLarge(limits, protoSize('google.protobuf.Any', m.body))) {
      const type = String(m.body?.type_url ?? '').replace(/^.*\//, '');
      return rejection(Cause.BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE, `Message type ${type} exceeds size limit.`, true);
    }
  }
  const activityIds = new Set([...exec.activities.values()].map((a) => a.activityId));
  const timerIds = new Set(exec.timers.keys());
  for (const c of commands) {
    const act = c.scheduleActivityTaskCommandAttributes;
    if (act) {
      if (!act.activityId || !act.activityType?.name) {
        return rejection(Cause.BAD_SCHEDULE_ACTIVITY_ATTRIBUTES, 'ActivityId and ActivityType are required.');
      }
      if (!protoToMs(act.scheduleToCloseTimeout) && !protoToMs(act.startToCloseTimeout)) {
        return rejection(
          Cause.BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
          'A valid StartToClose or ScheduleToCloseTimeout is not set on ScheduleActivityTaskCommand.',
        );
      }
      if (activityIds.has(act.activityId)) {
        return rejection(Cause.SCHEDULE_ACTIVITY_DUPLICATE_ID, `Activity ID ${act.activityId} is already in use.`);
      }
      activityIds.add(act.activityId);
    }
    const child = c.startChildWorkflowExecutionCommandAttributes;
    if (child) {
      if (!child.workflowId || !child.workflowType?.name || child.cronSchedule) {
        const reason = child.cronSchedule
          ? 'cron schedules are not supported by temporal-dev'
          : 'WorkflowId and WorkflowType are required.';
        return rejection(Cause.BAD_START_CHILD_EXECUTION_ATTRIBUTES, reason);
      }
      const invalid = searchAttributesError(ns, child.searchAttributes?.indexedFields);
      if (invalid) {
        const where = `WorkflowId=${child.workflowId} WorkflowType=${child.workflowType.name} Namespace=${child.namespace || exec.ns.name}`;
        return rejection(Cause.BAD_SEARCH_ATTRIBUTES, `invalid SearchAttributes on StartChildWorkflowCommand: ${invalid}. ${where}`);
      }
    }
    const timer = c.startTimerCommandAttributes;
    if (timer) {
      if (timerIds.has(timer.timerId)) {
        return rejection(Cause.START_TIMER_DUPLICATE_ID, `Timer ID ${timer.timerId} is already in use.`);
      }
      timerIds.add(timer.timerId);
    }
    const upsert = c.upsertWorkflowSearchAttributesCommandAttributes;
    if (upsert) {
      const fields = upsert.searchAttributes?.indexedFields ?? {};
      if (Object.keys(fields).length === 0) {
        return rejection(Cause.BAD_SEARCH_ATTRIBUTES, 'IndexedFields is not set on UpsertWorkflowSearchAttributesCommand.');
      }
      const invalid = searchAttributesError(ns, fields);
      if (invalid) return rejection(Cause.BAD_SEARCH_ATTRIBUTES, invalid);
    }
    const next = c.continueAsNewWorkflowExecutionCommandAttributes;
    if (next) {
      const invalid = searchAttributesError(ns, next.searchAttributes?.indexedFields);
      if (invalid) {
        const where = `WorkflowType=${next.workflowType?.name || exec.options.workflowType.name} TaskQueue=${next.taskQueue?.name || exec.options.taskQueue}`;
        return rejection(
          Cause.BAD_SEARCH_ATTRIBUTES,
          `invalid SearchAttributes on ContinueAsNewWorkflowExecutionCommand: ${invalid}. ${where}`,
        );
      }
    }
    for (const [field, size, cause, reason] of PAYLOAD_CHECKS) {
      if (c[field] && blobTooLarge(limits, size(c[field]))) return rejection(cause, reason, true);
    }
    if (next && memoTooLarge(limits, next.memo)) {
      return rejection(
        Cause.BAD_CONTINUE_AS_NEW_ATTRIBUTES,
        'ContinueAsNewWorkflowExecutionCommandAttributes. Memo exceeds size limit.',
        true,
      );
    }
    if (child && memoTooLarge(limits, child.memo)) {
      return rejection(
        Cause.BAD_START_CHILD_EXECUTION_ATTRIBUTES,
        'StartChildWorkflowExecutionCommandAttributes.Memo exceeds size limit.',
        true,
      );
    }
    const memo = c.modifyWorkflowPropertiesCommandAttributes?.upsertedMemo?.fields;
    if (memo && memoTooLarge(limits, { fields: merged(exec.memo, memo) })) {
      return rejection(
        Cause.BAD_MODIFY_WORKFLOW_PROPERTIES_ATTRIBUTES,
        'ModifyWorkflowPropertiesCommandAttributes. Memo exceeds size limit.',
        true,
      );
    }
  }
  return undefined;
}

/**
 * Writes the command events. Effects on other executions are pushed to `followUps`, run once
 * the task is committed; activities the worker asked to run eagerly go to `eagerActivities`
 * instead of their task queue. Returns true when the workflow needs another task right away.
 */
export function applyCommands(
  exec: CommandTarget,
  commands: Msg[],
  messages: Msg[],
  completedEventId: number,
  identity: string,
  followUps: Array<() => void>,
  eagerActivities: PendingActivity[],
): boolean {
  let needsTask = false;
  const base = { workflowTaskCompletedEventId: completedEventId };
  const ns = exec.ns;
  // Protocol messages are applied where their ProtocolMessage command sits; the rest afterwards.
  const pending = new Map(messages.map((m) => [m.id as string, m]));
  for (const c of commands) {
    if (!exec.isOpen) break;
    if (c.scheduleActivityTaskCommandAttributes) {
      const a = c.scheduleActivityTaskCommandAttributes;
      const attrs = activityDefaults(exec, a);
      const event = exec.append('activityTaskScheduledEventAttributes', { ...attrs, ...base }, c);
      const activity = new PendingActivity(exec, event.eventId, attrs);
      exec.addActivity(activity);
      if (a.requestEagerExecution) eagerActivities.push(activity);
      else activity.dispatch();
    } else if (c.requestCancelActivityTaskCommandAttributes) {
      const id: number = c.requestCancelActivityTaskCommandAttributes.scheduledEventId;
      const event = exec.append('activityTaskCancelRequestedEventAttributes', { scheduledEventId: id, ...base });
      const activity = exec.activities.get(id);
      if (activity?.requestCancel(event.eventId)) needsTask = true;
    } else if (c.startTimerCommandAttributes) {
      const { timerId, startToFireTimeout } = c.startTimerCommandAttributes;
      const event = exec.append('timerStartedEventAttributes', { timerId, startToFireTimeout, ...base }, c);
      exec.startTimer(timerId, event.eventId, ns.clock.now() + (protoToMs(startToFireTimeout) ?? 0));
    } else if (c.cancelTimerCommandAttributes) {
      const { timerId } = c.cancelTimerCommandAttributes;
      const timer = exec.timers.get(timerId);
      if (timer) {
        timer.deadline.cancel();
        exec.timers.delete(timerId);
        exec.append('timerCanceledEventAttributes', { timerId, startedEventId: timer.startedEventId, identity, ...base });
      }
    } else if (c.recordMarkerCommandAttributes) {
      exec.append('markerRecordedEventAttributes', { ...c.recordMarkerCommandAttributes, ...base }, c);
    } else if (c.upsertWorkflowSearchAttributesCommandAttributes) {
      const fields = withTypes(ns, c.upsertWorkflowSearchAttributesCommandAttributes.searchAttributes?.indexedFields ?? {});
      exec.append('upsertWorkflowSearchAttributesEventAttributes', { searchAttributes: { indexedFields: fields }, ...base }, c);
      exec.searchAttributes = merged(exec.searchAttributes, fields);
    } else if (c.modifyWorkflowPropertiesCommandAttributes) {
      const fields: Record<string, Msg> = c.modifyWorkflowPropertiesCommandAttributes.upsertedMemo?.fields ?? {};
      exec.append('workflowPropertiesModifiedEventAttributes', { upsertedMemo: { fields }, ...base }, c);
      exec.memo = merged(exec.memo, fields);
    } else if (c.completeWorkflowExecutionCommandAttributes) {
      const { result } = c.completeWorkflowExecutionCommandAttributes;
      exec.close(Status.COMPLETED, 'workflowExecutionCompletedEventAttributes', { result, ...base });
    } else if (c.failWorkflowExecutionCommandAttributes) {
      ns.starts.failWorkflow(exec, c.failWorkflowExecutionCommandAttributes.failure, completedEventId);
    } else if (c.cancelWorkflowExecutionCommandAttributes) {
      const { details } = c.cancelWorkflowExecutionCommandAttributes;
      exec.close(Status.CANCELED, 'workflowExecutionCanceledEventAttributes', { details, ...base });
    } else if (c.continueAsNewWorkflowExecutionCommandAttributes) {
      ns.starts.continueAsNew(exec, c.continueAsNewWorkflowExecutionCommandAttributes, completedEventId);
    } else if (c.startChildWorkflowExecutionCommandAttributes) {
      const a = c.startChildWorkflowExecutionCommandAttributes;
      const taskQueue = { name: a.taskQueue?.name || exec.options.taskQueue, kind: TaskQueueKind.NORMAL };
      const attrs = { ...a, namespace: a.namespace || ns.name, taskQueue, ...base };
      const event = exec.append('startChildWorkflowExecutionInitiatedEventAttributes', attrs, c);
      followUps.push(() => ns.starts.startChild(exec, event.eventId, attrs, c.userMetadata));
    } else if (c.signalExternalWorkflowExecutionCommandAttributes) {
      const { execution, ...a } = c.signalExternalWorkflowExecutionCommandAttributes;
      const attrs = { ...a, namespace: a.namespace || ns.name, workflowExecution: execution, ...base };
      const event = exec.append('signalExternalWorkflowExecutionInitiatedEventAttributes', attrs, c);
      followUps.push(() => ns.starts.signalExternal(exec, event.eventId, attrs));
    } else if (c.requestCancelExternalWorkflowExecutionCommandAttributes) {
      const { workflowId, runId, ...a } = c.requestCancelExternalWorkflowExecutionCommandAttributes;
      const attrs = { ...a, namespace: a.namespace || ns.name, workflowExecution: { workflowId, runId }, ...base };
      const event = exec.append('requestCancelExternalWorkflowExecutionInitiatedEventAttributes', attrs, c);
      followUps.push(() => ns.starts.cancelExternal(exec, event.eventId, attrs));
    } else if (c.protocolMessageCommandAttributes) {
      const message = pending.get(c.protocolMessageCommandAttributes.messageId);
      pending.delete(c.protocolMessageCommandAttributes.messageId);
      if (message) exec.updates.apply(message);
    }
  }
  if (exec.isOpen) for (const message of pending.values()) exec.updates.apply(message);
  return needsTask;
}

function activityDefaults(exec: CommandTarget, a: Msg): Msg {
  const runTimeoutMs = exec.options.runTimeoutMs;
  const scheduleToClose = protoToMs(a.scheduleToCloseTimeout) ?? runTimeoutMs;
  const startToClose = protoToMs(a.startToCloseTimeout) ?? scheduleToClose;
  const scheduleToStart = protoToMs(a.scheduleToStartTimeout) ?? scheduleToClose;
  const taskQueue = a.taskQueue?.name || exec.options.taskQueue;
  return {
    activityId: a.activityId,
    activityType: a.activityType,
    taskQueue: { name: taskQueue, kind: TaskQueueKind.NORMAL },
    header: a.header,
    input: a.input,
    // Zero means "no timeout"; the fields are always present, as workers require them.
    scheduleToCloseTimeout: msToProto(scheduleToClose ?? 0),
    scheduleToStartTimeout: msToProto(scheduleToStart ?? 0),
    startToCloseTimeout: msToProto(startToClose ?? 0),
    heartbeatTimeout: msToProto(protoToMs(a.heartbeatTimeout) ?? 0),
    retryPolicy: withRetryDefaults(a.retryPolicy),
    priority: a.priority,
  };
}

/** Upsert semantics (Temporal's MergeMapOfPayload): a null, empty-list or empty payload removes the key. */
function merged(target: Record<string, Msg>, fields: Record<string, Msg>): Record<string, Msg> {
  const out = { ...target };
  for (const [key, payload] of Object.entries(fields)) {
    if (isUnset(payload)) delete out[key];
    else out[key] = payload;
  }
  return out;
}
