import type { Db } from '../db/index.ts';
import { requestRunId } from './repository.ts';

/**
 * Waits (after the commit) until the relay has started or joined the request's run, and
 * returns its run id; null when no relay delivered within `deadlineMs` (no worker running):
 * the intent stays in the outbox and the run starts when a relay is back.
 */
export async function awaitRunStart(db: Db, requestId: string, deadlineMs: number): Promise<string | null> {
  const until = Date.now() + deadlineMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    const runId = await requestRunId(db, requestId);
    if (runId) return runId;
    if (Date.now() + wait > until) return null;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
