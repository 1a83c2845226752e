// Applies the commands of a completed workflow task, in order, as history events.
import { PendingActivity } from './activity-tasks.ts';
import { Status, TaskQueueKind, WorkflowTaskFailedCause } from './enums.ts';
import type { Msg } from './proto.ts';
import { withRetryDefaults } from './retry.ts';
import { msToProto, protoToMs } from './time.ts';
import { noteSearchAttributes } from './visibility.ts';
import type { Execution } from './workflow-execution.ts';

export interface CommandRejection {
  cause: number;
  message: string;
}

/** Checks commands before any is applied, as Temporal fails the whole task on a bad one. */
export function validateCommands(exec: Execution, commands: Msg[]): CommandRejection | undefined {
  const activityIds = new Set([...exec.activities.values()].map((a) => a.activityId));
  const timerIds = new Set(exec.timers.keys());
  for (const c of commands) {
    const act = c.scheduleActivityTaskCommandAttributes;
    if (act) {
      if (!act.activityId || !act.activityType?.name) {
        return { cause: WorkflowTaskFailedCause.BAD_SCHEDULE_ACTIVITY_ATTRIBUTES, message: 'ActivityId and ActivityType are required.' };
      }
      if (!protoToMs(act.scheduleToCloseTimeout) && !protoToMs(act.startToCloseTimeout)) {
        return {
          cause: WorkflowTaskFailedCause.BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
          message: 'A valid StartToClose or ScheduleToCloseTimeout is not set on ScheduleActivityTaskCommand.',
        };
      }
      if (activityIds.has(act.activityId)) {
        return {
          cause: WorkflowTaskFailedCause.SCHEDULE_ACTIVITY_DUPLICATE_ID,
          message: `Activity ID ${act.activityId} is already in use.`,
        };
      }
      activityIds.add(act.activityId);
    }
    const child = c.startChildWorkflowExecutionCommandAttributes;
    if (child && (!child.workflowId || !child.workflowType?.name || child.cronSchedule)) {
      return {
        cause: WorkflowTaskFailedCause.BAD_START_CHILD_EXECUTION_ATTRIBUTES,
        message: child.cronSchedule ? 'cron schedules are not supported by temporal-dev' : 'WorkflowId and WorkflowType are required.',
      };
    }
    const timer = c.startTimerCommandAttributes;
    if (timer) {
      if (timerIds.has(timer.timerId)) {
        return { cause: WorkflowTaskFailedCause.START_TIMER_DUPLICATE_ID, message: `Timer ID ${timer.timerId} is already in use.` };
      }
      timerIds.add(timer.timerId);
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
  exec: Execution,
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
      const event = exec.append('activityTaskScheduledEventAttributes', { ...attrs, ...base });
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
      const event = exec.append('timerStartedEventAttributes', { timerId, startToFireTimeout, ...base });
      exec.startTimer(timerId, event.eventId, ns.server.clock.now() + (protoToMs(startToFireTimeout) ?? 0));
    } else if (c.cancelTimerCommandAttributes) {
      const { timerId } = c.cancelTimerCommandAttributes;
      const timer = exec.timers.get(timerId);
      if (timer) {
        timer.deadline.cancel();
        exec.timers.delete(timerId);
        exec.append('timerCanceledEventAttributes', { timerId, startedEventId: timer.startedEventId, identity, ...base });
      }
    } else if (c.recordMarkerCommandAttributes) {
      exec.append('markerRecordedEventAttributes', { ...c.recordMarkerCommandAttributes, ...base });
    } else if (c.upsertWorkflowSearchAttributesCommandAttributes) {
      const fields: Record<string, Msg> = c.upsertWorkflowSearchAttributesCommandAttributes.searchAttributes?.indexedFields ?? {};
      exec.append('upsertWorkflowSearchAttributesEventAttributes', { searchAttributes: { indexedFields: fields }, ...base });
      mergeFields(exec.searchAttributes, fields);
      noteSearchAttributes(ns.server, fields);
    } else if (c.modifyWorkflowPropertiesCommandAttributes) {
      const fields: Record<string, Msg> = c.modifyWorkflowPropertiesCommandAttributes.upsertedMemo?.fields ?? {};
      exec.append('workflowPropertiesModifiedEventAttributes', { upsertedMemo: { fields }, ...base });
      mergeFields(exec.memo, fields);
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
      const event = exec.append('startChildWorkflowExecutionInitiatedEventAttributes', attrs);
      followUps.push(() => ns.starts.startChild(exec, event.eventId, attrs));
    } else if (c.signalExternalWorkflowExecutionCommandAttributes) {
      const { execution, ...a } = c.signalExternalWorkflowExecutionCommandAttributes;
      const attrs = { ...a, namespace: a.namespace || ns.name, workflowExecution: execution, ...base };
      const event = exec.append('signalExternalWorkflowExecutionInitiatedEventAttributes', attrs);
      followUps.push(() => ns.starts.signalExternal(exec, event.eventId, attrs));
    } else if (c.requestCancelExternalWorkflowExecutionCommandAttributes) {
      const { workflowId, runId, ...a } = c.requestCancelExternalWorkflowExecutionCommandAttributes;
      const attrs = { ...a, namespace: a.namespace || ns.name, workflowExecution: { workflowId, runId }, ...base };
      const event = exec.append('requestCancelExternalWorkflowExecutionInitiatedEventAttributes', attrs);
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

function activityDefaults(exec: Execution, a: Msg): Msg {
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

/** Upsert semantics: an empty payload removes the key. */
function mergeFields(target: Record<string, Msg>, fields: Record<string, Msg>): void {
  for (const [key, payload] of Object.entries(fields)) {
    if (!payload.data || payload.data.length === 0) delete target[key];
    else target[key] = payload;
  }
}
