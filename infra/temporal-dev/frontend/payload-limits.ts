// The blob size checks Temporal's frontend makes before a request reaches a run.
import { QueryResultType } from '../common/enums.ts';
import { invalidArgument } from '../common/errors.ts';
import { BLOB_SIZE_EXCEEDED, blobTooLarge, type Limits, protoSize } from '../common/limits.ts';
import type { Msg } from '../common/proto.ts';
import type { Handler } from './grpc-server.ts';

const PAYLOADS = 'temporal.api.common.v1.Payloads';
const FAILURE = 'temporal.api.failure.v1.Failure';

/** A server failure as Temporal's frontend substitutes for an oversized one (failure.NewServerFailure). */
function serverFailure(message: string, cause?: Msg): Msg {
  return { message, serverFailureInfo: { nonRetryable: true }, cause };
}

/** At most `maxBytes` of `text`'s UTF-8, not splitting a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(maxBytes, 0);
  // Back off continuation bytes (10xxxxxx) so the cut falls between characters.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** Temporal's failure.Truncate: type, source, message, stack and causes cut to share `maxBytes`. */
function truncateFailure(failure: Msg | undefined, maxBytes: number, depth = 20): Msg | undefined {
  if (!failure) return undefined;
  let left = maxBytes;
  const cut = (text: string | undefined): string | undefined => {
    const out = truncateUtf8(text ?? '', left);
    // Each string also costs its protobuf tag and length.
    if (out) left -= Buffer.byteLength(out) + 4;
    return out || undefined;
  };
  const out: Msg = {};
  if (failure.applicationFailureInfo) {
    out.applicationFailureInfo = {
      nonRetryable: failure.applicationFailureInfo.nonRetryable,
      type: cut(failure.applicationFailureInfo.type),
    };
    left -= 8;
  } else if (failure.serverFailureInfo) {
    out.serverFailureInfo = { nonRetryable: failure.serverFailureInfo.nonRetryable };
    left -= 4;
  }
  out.source = cut(failure.source);
  out.message = cut(failure.message);
  out.stackTrace = cut(failure.stackTrace);
  if (failure.cause && left > 4 && depth > 0) out.cause = truncateFailure(failure.cause, left - 4, depth - 1);
  return out;
}

/**
 * Wraps WorkflowService handlers with the blob size checks of Temporal's frontend: an oversized
 * signal is refused, an oversized activity result, heartbeat or cancellation fails the activity
 * (non-retryable), an oversized failure is replaced by a server failure, an oversized query
 * result fails the query.
 */
export function withPayloadLimits(limits: Limits, handlers: Record<string, Handler>): Record<string, Handler> {
  const tooLarge = (type: string, message: Msg | undefined) => blobTooLarge(limits, protoSize(type, message));
  const call = (name: string, req: Msg, ctx: Parameters<Handler>[1]) => handlers[name]!(req, ctx);
  const refuse = (name: string, field: string) => (req: Msg, ctx: Parameters<Handler>[1]) => {
    if (tooLarge(PAYLOADS, req[field])) throw invalidArgument(BLOB_SIZE_EXCEEDED);
    return call(name, req, ctx);
  };
  // Completed or canceled with oversized data: the activity fails instead, as Temporal records it.
  const failInstead = (name: string, failName: string, field: string, reason: string) => async (req: Msg, ctx: Parameters<Handler>[1]) => {
    if (!tooLarge(PAYLOADS, req[field])) return call(name, req, ctx);
    await call(failName, { ...req, [field]: undefined, failure: serverFailure(reason) }, ctx);
    return {};
  };
  const heartbeat = (name: string, failName: string) => async (req: Msg, ctx: Parameters<Handler>[1]) => {
    if (!tooLarge(PAYLOADS, req.details)) return call(name, req, ctx);
    await call(failName, { ...req, details: undefined, failure: serverFailure('Heartbeat details exceed size limit.') }, ctx);
    return { cancelRequested: true };
  };
  const failed = (name: string) => async (req: Msg, ctx: Parameters<Handler>[1]) => {
    const failures: Msg[] = [];
    let request = req;
    if (tooLarge(PAYLOADS, req.lastHeartbeatDetails)) {
      failures.push(serverFailure('Heartbeat details exceed size limit.'));
      request = { ...request, lastHeartbeatDetails: undefined };
    }
    if (tooLarge(FAILURE, req.failure)) {
      const failure = serverFailure('Failure exceeds size limit.', truncateFailure(req.failure, limits.blobSizeWarn));
      failures.push(failure);
      request = { ...request, failure };
    }
    await call(name, request, ctx);
    return { failures };
  };
  return {
    ...handlers,
    SignalWorkflowExecution: refuse('SignalWorkflowExecution', 'input'),
    SignalWithStartWorkflowExecution: refuse('SignalWithStartWorkflowExecution', 'signalInput'),
    RespondActivityTaskCompleted: failInstead(
      'RespondActivityTaskCompleted',
      'RespondActivityTaskFailed',
      'result',
      'Complete result exceeds size limit.',
    ),
    RespondActivityTaskCompletedById: failInstead(
      'RespondActivityTaskCompletedById',
      'RespondActivityTaskFailedById',
      'result',
      'Complete result exceeds size limit.',
    ),
    RespondActivityTaskCanceled: failInstead(
      'RespondActivityTaskCanceled',
      'RespondActivityTaskFailed',
      'details',
      'Cancel details exceed size limit.',
    ),
    RespondActivityTaskCanceledById: failInstead(
      'RespondActivityTaskCanceledById',
      'RespondActivityTaskFailedById',
      'details',
      'Cancel details exceed size limit.',
    ),
    RecordActivityTaskHeartbeat: heartbeat('RecordActivityTaskHeartbeat', 'RespondActivityTaskFailed'),
    RecordActivityTaskHeartbeatById: heartbeat('RecordActivityTaskHeartbeatById', 'RespondActivityTaskFailedById'),
    RespondActivityTaskFailed: failed('RespondActivityTaskFailed'),
    RespondActivityTaskFailedById: failed('RespondActivityTaskFailedById'),
    RespondWorkflowTaskFailed: (req, ctx) => {
      if (!tooLarge(FAILURE, req.failure)) return call('RespondWorkflowTaskFailed', req, ctx);
      const failure = serverFailure('Failure exceeds size limit.', truncateFailure(req.failure, limits.blobSizeWarn));
      return call('RespondWorkflowTaskFailed', { ...req, failure }, ctx);
    },
    RespondQueryTaskCompleted: (req, ctx) => {
      if (!tooLarge(PAYLOADS, req.queryResult)) return call('RespondQueryTaskCompleted', req, ctx);
      const failed = { taskToken: req.taskToken, completedType: QueryResultType.FAILED, errorMessage: BLOB_SIZE_EXCEEDED };
      return call('RespondQueryTaskCompleted', failed, ctx);
    },
  };
}
