import { Context } from '@temporalio/activity';

/**
 * What a mail server's "try again later" means for this attempt: retried while the activity has
 * attempts left, a failure on its last one (else its messages would stay `sending` for good).
 */
export function whenRefusedForNow(): 'retry' | 'fail' {
  const { attempt, retryPolicy } = Context.current().info;
  const last = retryPolicy?.maximumAttempts;
  return last && attempt >= last ? 'fail' : 'retry';
}
