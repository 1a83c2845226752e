// ExecuteMultiOperation, which Temporal serves for exactly one combination: update-with-start
// ([StartWorkflow, UpdateWorkflow] on one workflow id). The update either goes to the current run
// (a retried request, an update id it already has, or USE_EXISTING) or is admitted into a new run
// before that run's first workflow task, so the first task delivers it. Failures are reported as
// Temporal does: one error whose MultiOperationExecutionFailure detail has a status per operation,
// the operation that did not fail marked as aborted.
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { IdConflictPolicy, UpdateStage } from '../common/enums.ts';
import { invalidArgument, ServiceError } from '../common/errors.ts';
import { encodeMessage, lookupType, type Msg } from '../common/proto.ts';
import { protoToMs } from '../common/time.ts';
import { isAbortedByClose, validateUpdateRequest } from './updates.ts';
import type { Execution } from './workflow-execution.ts';
import { checkStartRequest, type StartsHost } from './workflow-starts.ts';

const ABORTED_TYPE = 'temporal.api.failure.v1.MultiOperationExecutionAborted';

/** The status of an operation that was not carried out because the other one failed. */
const aborted = () => new ServiceError(status.ABORTED, 'Operation was aborted.', { typeName: ABORTED_TYPE, value: {} });

/** `undefined` marks an operation that succeeded. */
type OperationErrors = [ServiceError | undefined, ServiceError | undefined];

/** Carries both operations' statuses until they are turned into the one error the caller gets. */
class MultiOperationError extends Error {
  readonly errors: OperationErrors;
  constructor(errors: OperationErrors) {
    super('Update-with-Start could not be executed.');
    this.errors = errors;
  }
}

export async function executeMultiOperation(ns: StartsHost, req: Msg, signal: AbortSignal): Promise<Msg> {
  const ops: Msg[] = req.operations ?? [];
  const startReq: Msg | undefined = ops[0]?.startWorkflow;
  const updateReq: Msg | undefined = ops[1]?.updateWorkflow;
  if (ops.length !== 2 || !startReq || !updateReq) throw invalidArgument('Operations have to be exactly [Start, Update].');
  try {
    validate(ns, startReq, updateReq);
    try {
      return await invoke(ns, startReq, updateReq, signal);
    } catch (err) {
      if (!retryable(err)) throw err;
      // As Temporal: an update that the existing run aborted by closing is tried once more (the
      // start now makes a new run); if that happens again the caller gets a retryable ABORTED.
      try {
        return await invoke(ns, startReq, updateReq, signal);
      } catch (again) {
        if (!retryable(again)) throw again;
        throw new MultiOperationError([again.errors[0], new ServiceError(status.ABORTED, again.errors[1]!.message)]);
      }
    }
  } catch (err) {
    if (err instanceof MultiOperationError) throw toServiceError(err);
    throw err;
  }
}

/** Temporal's frontend checks: each operation on its own, then that both name the same workflow. */
function validate(ns: StartsHost, startReq: Msg, updateReq: Msg): void {
  const errors: OperationErrors = [check(() => validateStart(ns, startReq)), check(() => validateUpdate(ns, updateReq))];
  if (!errors[0] && !errors[1] && updateReq.workflowExecution.workflowId !== startReq.workflowId) {
    errors[1] = invalidArgument('WorkflowId is not consistent with previous operation(s).');
  }
  if (errors[0] || errors[1]) throw new MultiOperationError([errors[0] ?? aborted(), errors[1] ?? aborted()]);
}

function validateStart(ns: StartsHost, req: Msg): void {
  if (req.namespace && req.namespace !== ns.name) throw invalidArgument("Operation namespace did not match request's namespace.");
  checkStartRequest(req, ns.dynamicConfig.get('limit.maxIDLength'));
  // Set here, as Temporal's frontend does, so a retry of this request can be recognised by it.
  req.requestId ||= randomUUID();
  if (req.cronSchedule) throw invalidArgument('CronSchedule is not allowed.');
  if (req.requestEagerExecution) throw invalidArgument('RequestEagerExecution is not supported.');
  if (protoToMs(req.workflowStartDelay)) throw invalidArgument('WorkflowStartDelay is not supported.');
}

function validateUpdate(ns: StartsHost, req: Msg): void {
  if (req.namespace && req.namespace !== ns.name) throw invalidArgument("Operation namespace did not match request's namespace.");
  validateUpdateRequest(req, ns.dynamicConfig.get('limit.maxIDLength'));
  if (req.firstExecutionRunId) throw invalidArgument('FirstExecutionRunId is not allowed.');
  if (req.workflowExecution.runId) throw invalidArgument('RunId is not allowed.');
}

function check(f: () => void): ServiceError | undefined {
  try {
    f();
    return undefined;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
}

async function invoke(ns: StartsHost, startReq: Msg, updateReq: Msg, signal: AbortSignal): Promise<Msg> {
  const updateId: string = updateReq.request.meta.updateId;
  const current = ns.current(startReq.workflowId);
  if (current) {
    // A completed update is answered from the run that has it, open or closed.
    const outcome = current.updates.outcome(updateId);
    if (outcome) return response(current, false, outcome);
    const retried = current.options.requestId === startReq.requestId;
    const useExisting = startReq.workflowIdConflictPolicy === IdConflictPolicy.USE_EXISTING;
    if (current.isOpen && (retried || current.updates.has(updateId) || useExisting)) {
      return response(current, false, await runUpdate(aborted(), () => current.updates.request(updateReq, signal)));
    }
  }
  let admitted = false;
  let exec: Execution;
  try {
    exec = ns.starts.start(startReq, (e) => {
      e.updates.admit(updateReq.request);
      admitted = true;
    }).exec;
  } catch (err) {
    if (err instanceof ServiceError) throw new MultiOperationError([err, aborted()]);
    throw err;
  }
  if (!admitted) {
    // The start request id was already used on this workflow id, so no run took the update. Temporal
    // answers UNAVAILABLE (with its StartDeduped outcome's number), leaving a retry to the caller.
    throw new MultiOperationError([new ServiceError(status.UNAVAILABLE, 'Workflow was not started: 3'), aborted()]);
  }
  const stage: number = updateReq.waitPolicy?.lifecycleStage || UpdateStage.ACCEPTED;
  // The run exists now: the start's status is OK whatever becomes of the update.
  return response(exec, true, await runUpdate(undefined, () => exec.updates.wait(updateId, stage, signal)));
}

/** Runs the update operation; a ServiceError it throws becomes its status, next to `startStatus`. */
async function runUpdate(startStatus: ServiceError | undefined, update: () => Promise<Msg>): Promise<Msg> {
  try {
    return await update();
  } catch (err) {
    if (err instanceof ServiceError) throw new MultiOperationError([startStatus, err]);
    throw err;
  }
}

function response(exec: Execution, started: boolean, update: Msg): Msg {
  return {
    responses: [{ startWorkflow: { runId: exec.runId, started, status: exec.status } }, { updateWorkflow: update }],
  };
}

/** The update went to an existing run (the start is marked aborted) and that run closed before accepting it. */
function retryable(err: unknown): err is MultiOperationError {
  if (!(err instanceof MultiOperationError)) return false;
  const [start, update] = err.errors;
  return isAborted(start) && isAbortedByClose(update);
}

function isAborted(err: ServiceError | undefined): boolean {
  return err?.detail?.typeName === ABORTED_TYPE;
}

/** Temporal's status: the code of the first operation that really failed, every operation's status in the detail. */
function toServiceError(err: MultiOperationError): ServiceError {
  const failed = err.errors.find((e) => e && !isAborted(e));
  return new ServiceError(failed?.code ?? status.ABORTED, 'Update-with-Start could not be executed.', {
    typeName: 'temporal.api.errordetails.v1.MultiOperationExecutionFailure',
    value: { statuses: err.errors.map(operationStatus) },
  });
}

function operationStatus(err: ServiceError | undefined): Msg {
  if (!err) return { code: status.OK, message: '', details: [] };
  const details = err.detail
    ? [
        {
          type_url: `type.googleapis.com/${err.detail.typeName}`,
          value: encodeMessage(lookupType(err.detail.typeName), err.detail.value),
        },
      ]
    : [];
  return { code: err.code, message: err.message, details };
}
