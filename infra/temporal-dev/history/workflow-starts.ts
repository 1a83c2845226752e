// Creating runs and linking them: client starts with id reuse/conflict policies, continue-as-new,
// workflow retries, child workflows and their parent notifications, external signals/cancels.
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import {
  CancelExternalFailedCause,
  ContinueAsNewInitiator,
  ContinueAsNewVersioningBehavior,
  IdConflictPolicy,
  IdReusePolicy,
  ParentClosePolicy,
  RetryState,
  SignalExternalFailedCause,
  StartChildFailedCause,
  Status,
} from '../common/enums.ts';
import { alreadyExists, invalidArgument, requireField, ServiceError, unimplemented } from '../common/errors.ts';
import { BLOB_SIZE_EXCEEDED, blobTooLarge, MEMO_SIZE_EXCEEDED, memoTooLarge, protoSize } from '../common/limits.ts';
import type { Msg } from '../common/proto.ts';
import { decideRetry } from '../common/retry.ts';
import { isUnset, type Registered, searchAttributesError, withTypes } from '../common/search-attributes.ts';
import { protoToMs } from '../common/time.ts';
import { sameVersion, validateVersioningOverride, workerVersion } from '../common/worker-versioning.ts';
import { mergePriority } from '../matching/task-queues.ts';
import type { CommandStarts } from './commands.ts';
import { type ChildRef, Execution, type ParentRef, type RunHost, type StartOptions } from './workflow-execution.ts';

const DEFAULT_TASK_TIMEOUT_MS = 10_000;
const MAX_TASK_TIMEOUT_MS = 120_000;

export interface StartResult {
  exec: Execution;
  /**
   * False when an existing run was returned by USE_EXISTING or to a retry of such a request; a
   * retry of the request that created the run gets true again, as in Temporal.
   */
  started: boolean;
  /** With `requestEagerExecution`: the run's first workflow task, already started for the caller. */
  eagerWorkflowTask?: Msg;
}

/** The fields every start needs, checked in Temporal's order with its messages. */
export function checkStartRequest(request: Msg, maxIdLength: number): void {
  const workflowId = requireField<string>(request.workflowId, 'WorkflowId');
  // Temporal's frontend checks and words (`limit.maxIDLength`, 1000 by default).
  if (workflowId.length > maxIdLength) {
    throw invalidArgument(`WorkflowId exceeds maximum allowed length (${workflowId.length}/${maxIdLength})`);
  }
  if (requireField<string>(request.workflowType?.name, 'WorkflowType').length > maxIdLength) {
    throw invalidArgument('WorkflowType length exceeds limit.');
  }
  if (requireField<string>(request.taskQueue?.name, 'TaskQueue').length > maxIdLength)
    throw invalidArgument('taskQueue length exceeds limit');
  if ((request.requestId ?? '').length > maxIdLength) throw invalidArgument('RequestId length exceeds limit.');
}

/**
 * What starts need of their namespace (namespace/registry.ts implements it): what its runs need,
 * its runs by id, and the other namespaces by name (children, signals and cancels may cross).
 */
export interface StartsHost extends RunHost {
  readonly id: string;
  readonly starts: WorkflowStarts;
  add(exec: Execution): void;
  /** A run by id, or the current run when runId is empty. */
  find(workflowId: string, runId?: string | null): Execution | undefined;
  /** The run a request's WorkflowExecution names; NOT_FOUND when there is none. */
  get(execution: Msg | undefined): Execution;
  lookup(namespace: string): StartsHost | undefined;
}

export class WorkflowStarts implements CommandStarts<Execution> {
  private readonly ns: StartsHost;

  constructor(ns: StartsHost) {
    this.ns = ns;
  }

  /**
   * Starts a run from a Start/SignalWithStart-shaped request. `initialEvents` runs before the first
   * workflow task is scheduled (signal-with-start appends its signal there, update-with-start
   * admits its update), and only when a new run is started.
   */
  start(request: Msg, initialEvents?: (exec: Execution) => void, parent?: ParentRef): StartResult {
    checkStartRequest(request, this.ns.dynamicConfig.get('limit.maxIDLength'));
    const workflowId: string = request.workflowId;
    const taskQueue: string = request.taskQueue.name;
    if (request.cronSchedule) throw unimplemented('cron schedules are not supported by temporal-dev');
    this.validate(request);
    const requestId: string = request.requestId || randomUUID();

    const current = this.ns.current(workflowId);
    if (current?.requestIds.has(requestId)) {
      const created = current.options.requestId === requestId;
      // A retried eager start gets the first workflow task again while it is still in its first attempt.
      const eagerWorkflowTask = created && request.requestEagerExecution ? current.firstWorkflowTaskAgain() : undefined;
      return { exec: current, started: created, eagerWorkflowTask };
    }
    let conflict = request.workflowIdConflictPolicy || IdConflictPolicy.UNSPECIFIED;
    const reuse = request.workflowIdReusePolicy || IdReusePolicy.ALLOW_DUPLICATE;
    if (conflict === IdConflictPolicy.UNSPECIFIED) {
      conflict = reuse === IdReusePolicy.TERMINATE_IF_RUNNING ? IdConflictPolicy.TERMINATE_EXISTING : IdConflictPolicy.FAIL;
    }
    if (current?.isOpen) {
      if (conflict === IdConflictPolicy.USE_EXISTING) {
        current.addRequestId(requestId);
        return { exec: current, started: false };
      }
      if (conflict === IdConflictPolicy.FAIL) throw alreadyRunning(current);
      current.terminate('terminated by a new start (TERMINATE_EXISTING)', undefined, request.identity ?? '');
    } else if (current) {
      const failedOnly = reuse === IdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY;
      if (reuse === IdReusePolicy.REJECT_DUPLICATE || (failedOnly && current.status === Status.COMPLETED)) {
        throw alreadyExists(
          `Workflow execution already finished and its id reuse policy rejects a new run. WorkflowId: ${workflowId}, RunId: ${current.runId}.`,
        );
      }
    }

    const runId = randomUUID();
    const executionTimeoutMs = protoToMs(request.workflowExecutionTimeout);
    const startDelayMs = protoToMs(request.workflowStartDelay);
    const options: StartOptions = {
      workflowId,
      runId,
      firstRunId: runId,
      requestId,
      workflowType: request.workflowType,
      taskQueue,
      input: request.input,
      header: request.header,
      memo: request.memo,
      searchAttributes: typedSearchAttributes(this.ns, request.searchAttributes),
      executionTimeoutMs,
      runTimeoutMs: protoToMs(request.workflowRunTimeout) ?? executionTimeoutMs,
      expirationTime: executionTimeoutMs ? this.ns.clock.now() + executionTimeoutMs : undefined,
      taskTimeoutMs: Math.min(protoToMs(request.workflowTaskTimeout) ?? DEFAULT_TASK_TIMEOUT_MS, MAX_TASK_TIMEOUT_MS),
      retryPolicy: request.retryPolicy,
      attempt: 1,
      identity: request.identity,
      parent,
      rootExecution: parent && this.rootOf(parent),
      firstWorkflowTaskBackoffMs: startDelayMs,
      // Set by schedules, which hand a run the previous run's result or failure.
      lastCompletionResult: request.lastCompletionResult,
      continuedFailure: request.continuedFailure,
      priority: request.priority ?? undefined,
      userMetadata: request.userMetadata ?? undefined,
      versioningOverride: request.versioningOverride ?? undefined,
      // Set by startChild only (not a field of the start request).
      inheritedPinnedVersion: request.inheritedPinnedVersion,
    };
    // As Temporal: a delayed first workflow task cannot be handed out now, so the start is not eager.
    const eager = request.requestEagerExecution && !startDelayMs ? { identity: request.identity ?? '', requestId } : undefined;
    const exec = new Execution(this.ns, options);
    this.ns.add(exec);
    exec.addRequestId(requestId);
    initialEvents?.(exec);
    // As Temporal: only a worker of the version the first task targets may take it eagerly.
    const eagerFits = eager && sameVersion(exec.targetVersion(), workerVersion(request.eagerWorkerDeploymentOptions ?? undefined));
    return { exec, started: true, eagerWorkflowTask: exec.begin(eagerFits ? eager : undefined) };
  }

  /** A child's root: its parent's root (the parent itself when that is a top-level run). */
  private rootOf(parent: ParentRef): { workflowId: string; runId: string } {
    const parentExec = this.ns.lookup(parent.namespace)?.find(parent.execution.workflowId, parent.execution.runId);
    return parentExec?.options.rootExecution ?? parent.execution;
  }

  /** Temporal's checks of a start request's input, memo and search attributes (INVALID_ARGUMENT). */
  validate(request: Msg): void {
    const limits = this.ns.limits;
    if (blobTooLarge(limits, protoSize('temporal.api.common.v1.Payloads', request.input))) throw invalidArgument(BLOB_SIZE_EXCEEDED);
    if (memoTooLarge(limits, request.memo)) throw invalidArgument(MEMO_SIZE_EXCEEDED);
    const invalidAttributes = searchAttributesError(this.ns, request.searchAttributes?.indexedFields);
    if (invalidAttributes) throw invalidArgument(invalidAttributes);
    validateVersioningOverride(request.versioningOverride ?? undefined);
  }

  private launch(options: StartOptions): void {
    const exec = new Execution(this.ns, options);
    this.ns.add(exec);
    exec.begin();
  }

  /** Closes `exec` as continued-as-new and starts the next run of the chain. */
  continueAsNew(exec: Execution, attrs: Msg, completedEventId: number): void {
    const initiator = ContinueAsNewInitiator.WORKFLOW;
    const prev = exec.options;
    const runId = randomUUID();
    exec.nextRunId = runId;
    const next: StartOptions = {
      ...prev,
      runId,
      workflowType: attrs.workflowType?.name ? attrs.workflowType : prev.workflowType,
      taskQueue: attrs.taskQueue?.name || prev.taskQueue,
      input: attrs.input,
      header: attrs.header ?? prev.header,
      memo: attrs.memo ?? { fields: exec.memo },
      searchAttributes: attrs.searchAttributes
        ? typedSearchAttributes(this.ns, attrs.searchAttributes)
        : { indexedFields: exec.searchAttributes },
      runTimeoutMs: protoToMs(attrs.workflowRunTimeout) ?? prev.runTimeoutMs,
      taskTimeoutMs: protoToMs(attrs.workflowTaskTimeout) ?? prev.taskTimeoutMs,
      retryPolicy: attrs.retryPolicy ?? prev.retryPolicy,
      attempt: 1,
      requestId: undefined,
      continuedExecutionRunId: exec.runId,
      initiator,
      continuedFailure: attrs.failure,
      lastCompletionResult: attrs.lastCompletionResult,
      firstWorkflowTaskBackoffMs: protoToMs(attrs.backoffStartInterval),
      // As Temporal: the next run keeps the priority, not the start's summary and details.
      userMetadata: undefined,
      // Unless the command asks the next run to start as AUTO_UPGRADE.
      inheritedPinnedVersion: attrs.initialVersioningBehavior
        ? undefined
        : exec.inheritedPin(this.ns, attrs.taskQueue?.name || prev.taskQueue),
      useRampingVersion: attrs.initialVersioningBehavior === ContinueAsNewVersioningBehavior.USE_RAMPING_VERSION || undefined,
    };
    exec.close(Status.CONTINUED_AS_NEW, 'workflowExecutionContinuedAsNewEventAttributes', {
      newExecutionRunId: runId,
      workflowType: next.workflowType,
      taskQueue: { name: next.taskQueue },
      input: next.input,
      header: next.header,
      memo: next.memo,
      searchAttributes: next.searchAttributes,
      workflowRunTimeout: attrs.workflowRunTimeout,
      workflowTaskTimeout: attrs.workflowTaskTimeout,
      backoffStartInterval: attrs.backoffStartInterval,
      initiator,
      workflowTaskCompletedEventId: completedEventId,
    });
    this.launch(next);
  }

  /** A FailWorkflowExecution command: retried as a new run when the workflow has a retry policy. */
  failWorkflow(exec: Execution, failure: Msg | undefined, completedEventId: number): void {
    const o = exec.options;
    const decision = decideRetry(o.retryPolicy, o.attempt, failure, this.ns.clock.now(), o.expirationTime);
    if (!decision.retry) {
      exec.close(Status.FAILED, 'workflowExecutionFailedEventAttributes', {
        failure,
        retryState: decision.retryState,
        workflowTaskCompletedEventId: completedEventId,
      });
      return;
    }
    const runId = randomUUID();
    exec.nextRunId = runId;
    exec.close(Status.FAILED, 'workflowExecutionFailedEventAttributes', {
      failure,
      retryState: RetryState.IN_PROGRESS,
      workflowTaskCompletedEventId: completedEventId,
      newExecutionRunId: runId,
    });
    this.launch({
      ...o,
      runId,
      requestId: undefined,
      attempt: o.attempt + 1,
      continuedExecutionRunId: exec.runId,
      initiator: ContinueAsNewInitiator.RETRY,
      continuedFailure: failure,
      memo: { fields: exec.memo },
      searchAttributes: { indexedFields: exec.searchAttributes },
      firstWorkflowTaskBackoffMs: decision.delayMs,
      userMetadata: undefined,
      inheritedPinnedVersion: exec.inheritedPin(this.ns, o.taskQueue),
    });
  }

  /** Child side effects of a run closing: tell the parent, apply parent-close policies. */
  onClosed(exec: Execution): void {
    for (const { child, policy } of exec.childrenClosingWithParent()) {
      // The child may have continued as new: act on its current run if it is still ours.
      const current = this.ns.lookup(child.namespace)?.current(child.workflowId);
      if (!current?.isOpen || current.options.parent?.execution.runId !== exec.runId) continue;
      queueMicrotask(() => {
        if (policy === ParentClosePolicy.TERMINATE) current.terminate('by parent close policy', undefined, '');
        else current.requestCancel({ cause: 'by parent close policy' });
      });
    }
    const parent = exec.options.parent;
    // A run that continues (as new or by retry) hands the parent relationship to the next run.
    if (!parent || exec.nextRunId !== undefined) return;
    queueMicrotask(() => {
      const parentExec = this.ns.lookup(parent.namespace)?.find(parent.execution.workflowId, parent.execution.runId);
      if (!parentExec?.isOpen) return;
      const ref = parentExec.children.get(parent.initiatedEventId);
      parentExec.children.delete(parent.initiatedEventId);
      const closeEvent = exec.history.events[exec.history.events.length - 1] ?? {};
      const base = {
        namespace: this.ns.name,
        workflowExecution: { workflowId: exec.workflowId, runId: ref?.runId ?? exec.runId },
        workflowType: exec.options.workflowType,
        initiatedEventId: parent.initiatedEventId,
        startedEventId: ref?.startedEventId ?? 0,
      };
      const childEvents: Record<number, [string, Msg]> = {
        [Status.COMPLETED]: [
          'childWorkflowExecutionCompletedEventAttributes',
          { result: closeEvent.workflowExecutionCompletedEventAttributes?.result },
        ],
        [Status.FAILED]: [
          'childWorkflowExecutionFailedEventAttributes',
          {
            failure: closeEvent.workflowExecutionFailedEventAttributes?.failure,
            retryState: closeEvent.workflowExecutionFailedEventAttributes?.retryState,
          },
        ],
        [Status.CANCELED]: [
          'childWorkflowExecutionCanceledEventAttributes',
          { details: closeEvent.workflowExecutionCanceledEventAttributes?.details },
        ],
        [Status.TERMINATED]: ['childWorkflowExecutionTerminatedEventAttributes', {}],
        [Status.TIMED_OUT]: ['childWorkflowExecutionTimedOutEventAttributes', { retryState: RetryState.TIMEOUT }],
      };
      const entry = childEvents[exec.status];
      if (entry) parentExec.record(entry[0], { ...base, ...entry[1] });
    });
  }

  /** Starts the child a StartChildWorkflowExecution command asked for; it inherits the parent's priority. */
  startChild(parent: Execution, initiatedEventId: number, attrs: Msg, userMetadata: Msg | undefined): void {
    const target = this.ns.lookup(attrs.namespace);
    const failed = (cause: number) =>
      parent.record('startChildWorkflowExecutionFailedEventAttributes', {
        namespace: attrs.namespace,
        workflowId: attrs.workflowId,
        workflowType: attrs.workflowType,
        cause,
        control: attrs.control,
        initiatedEventId,
        workflowTaskCompletedEventId: attrs.workflowTaskCompletedEventId,
      });
    if (!target) {
      failed(StartChildFailedCause.NAMESPACE_NOT_FOUND);
      return;
    }
    const parentRef: ParentRef = {
      namespace: this.ns.name,
      namespaceId: this.ns.id,
      execution: parent.ref,
      initiatedEventId,
    };
    let exec: Execution;
    try {
      const result = target.starts.start(
        {
          ...attrs,
          workflowIdConflictPolicy: IdConflictPolicy.FAIL,
          requestId: randomUUID(),
          identity: '',
          priority: mergePriority(parent.options.priority, attrs.priority),
          userMetadata,
          inheritedPinnedVersion: parent.inheritedPin(target, attrs.taskQueue?.name || parent.options.taskQueue),
        },
        undefined,
        parentRef,
      );
      exec = result.exec;
    } catch (err) {
      if (err instanceof ServiceError && err.code === status.ALREADY_EXISTS) {
        failed(StartChildFailedCause.WORKFLOW_ALREADY_EXISTS);
        return;
      }
      throw err;
    }
    const ref: ChildRef = {
      namespace: attrs.namespace,
      workflowId: exec.workflowId,
      runId: exec.runId,
      workflowType: attrs.workflowType,
      parentClosePolicy: attrs.parentClosePolicy ?? 0,
      startedEventId: 0,
    };
    parent.children.set(initiatedEventId, ref);
    parent.touch();
    parent.record('childWorkflowExecutionStartedEventAttributes', {
      namespace: attrs.namespace,
      initiatedEventId,
      workflowExecution: exec.ref,
      workflowType: attrs.workflowType,
      header: attrs.header,
    });
  }

  signalExternal(source: Execution, initiatedEventId: number, attrs: Msg): void {
    const target = this.ns.lookup(attrs.namespace)?.find(attrs.workflowExecution?.workflowId, attrs.workflowExecution?.runId);
    if (!target?.isOpen || (attrs.childWorkflowOnly && target.options.parent?.execution.runId !== source.runId)) {
      source.record('signalExternalWorkflowExecutionFailedEventAttributes', {
        cause: SignalExternalFailedCause.EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND,
        namespace: attrs.namespace,
        workflowExecution: attrs.workflowExecution,
        initiatedEventId,
        control: attrs.control,
        workflowTaskCompletedEventId: attrs.workflowTaskCompletedEventId,
      });
      return;
    }
    target.record('workflowExecutionSignaledEventAttributes', {
      signalName: attrs.signalName,
      input: attrs.input,
      header: attrs.header,
      identity: '',
      externalWorkflowExecution: source.ref,
    });
    source.record('externalWorkflowExecutionSignaledEventAttributes', {
      initiatedEventId,
      namespace: attrs.namespace,
      workflowExecution: target.ref,
      control: attrs.control,
    });
  }

  cancelExternal(source: Execution, initiatedEventId: number, attrs: Msg): void {
    const target = this.ns.lookup(attrs.namespace)?.find(attrs.workflowExecution?.workflowId, attrs.workflowExecution?.runId);
    if (!target?.isOpen) {
      source.record('requestCancelExternalWorkflowExecutionFailedEventAttributes', {
        cause: CancelExternalFailedCause.EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND,
        namespace: attrs.namespace,
        workflowExecution: attrs.workflowExecution,
        initiatedEventId,
        control: attrs.control,
        workflowTaskCompletedEventId: attrs.workflowTaskCompletedEventId,
      });
      return;
    }
    target.requestCancel({ cause: attrs.reason, external: { initiatedEventId, execution: source.ref } });
    source.record('externalWorkflowExecutionCancelRequestedEventAttributes', {
      initiatedEventId,
      namespace: attrs.namespace,
      workflowExecution: target.ref,
    });
  }
}

/** Search attributes as stored: with their type in each payload (see withTypes). */
function typedSearchAttributes(server: Registered, sa: Msg | undefined): Msg | undefined {
  // Unset values are dropped, as Temporal filters them from a start.
  const fields = Object.entries((sa?.indexedFields ?? {}) as Record<string, Msg>).filter(([, p]) => !isUnset(p));
  return fields.length ? { indexedFields: withTypes(server, Object.fromEntries(fields)) } : undefined;
}

function alreadyRunning(exec: Execution): ServiceError {
  return new ServiceError(
    status.ALREADY_EXISTS,
    `Workflow execution is already running. WorkflowId: ${exec.workflowId}, RunId: ${exec.runId}.`,
    {
      typeName: 'temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure',
      value: { startRequestId: exec.options.requestId, runId: exec.runId },
    },
  );
}
