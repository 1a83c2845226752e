// Retry decisions for activities (and workflow retry policies), following Temporal's rules.
import { RetryState, TimeoutType } from './enums.ts';
import type { Msg } from './proto.ts';
import { msToProto, protoToMs } from './time.ts';

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; retryState: number };

/** Fills Temporal's defaults into a retry policy (activities always have one). */
export function withRetryDefaults(policy: Msg | undefined): Msg {
  const initialMs = protoToMs(policy?.initialInterval) ?? 1000;
  return {
    initialInterval: msToProto(initialMs),
    backoffCoefficient: policy?.backoffCoefficient || 2,
    maximumInterval: msToProto(protoToMs(policy?.maximumInterval) ?? initialMs * 100),
    maximumAttempts: policy?.maximumAttempts ?? 0,
    nonRetryableErrorTypes: policy?.nonRetryableErrorTypes ?? [],
  };
}

/**
 * Decides whether attempt `attempt` (which just failed with `failure`) is retried, and after how
 * long. `expiresAt` is the overall deadline (schedule-to-close / execution timeout), if any.
 */
export function decideRetry(
  policy: Msg | undefined,
  attempt: number,
  failure: Msg | undefined,
  now: number,
  expiresAt: number | undefined,
): RetryDecision {
  if (!policy) return { retry: false, retryState: RetryState.RETRY_POLICY_NOT_SET };
  if (!isRetryableFailure(policy, failure)) return { retry: false, retryState: RetryState.NON_RETRYABLE_FAILURE };
  const app = failure?.applicationFailureInfo;
  const maxAttempts = policy.maximumAttempts ?? 0;
  if (maxAttempts > 0 && attempt >= maxAttempts) return { retry: false, retryState: RetryState.MAXIMUM_ATTEMPTS_REACHED };
  const initialMs = protoToMs(policy.initialInterval) ?? 1000;
  const maxMs = protoToMs(policy.maximumInterval) ?? initialMs * 100;
  const coefficient = policy.backoffCoefficient || 2;
  const explicit = protoToMs(app?.nextRetryDelay);
  const delayMs = explicit ?? Math.min(initialMs * coefficient ** (attempt - 1), maxMs);
  if (expiresAt !== undefined && now + delayMs >= expiresAt) return { retry: false, retryState: RetryState.TIMEOUT };
  return { retry: true, delayMs };
}

/** False for a `nonRetryable` failure or one whose type the policy lists as non-retryable. */
export function isRetryableFailure(policy: Msg, failure: Msg | undefined): boolean {
  const app = failure?.applicationFailureInfo;
  // Server failures are non-retryable when marked so (e.g. an activity result over the size limit).
  if (app?.nonRetryable || failure?.serverFailureInfo?.nonRetryable) return false;
  const errorType: string | undefined = app?.type ?? timeoutErrorType(failure);
  return !(errorType && (policy.nonRetryableErrorTypes ?? []).includes(errorType));
}

// Temporal matches timeouts against nonRetryableErrorTypes as "TemporalTimeout:<Type>".
function timeoutErrorType(failure: Msg | undefined): string | undefined {
  const type = failure?.timeoutFailureInfo?.timeoutType;
  if (!type) return undefined;
  const names = new Map<number, string>([
    [TimeoutType.START_TO_CLOSE, 'StartToClose'],
    [TimeoutType.SCHEDULE_TO_START, 'ScheduleToStart'],
    [TimeoutType.SCHEDULE_TO_CLOSE, 'ScheduleToClose'],
    [TimeoutType.HEARTBEAT, 'Heartbeat'],
  ]);
  return `TemporalTimeout:${names.get(type) ?? 'Unknown'}`;
}
