import { Context } from '@temporalio/activity';

/** How often a running activity tells Temporal it is alive (the SDK sends at most one per 80% of its heartbeat timeout). */
const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Runs `work` while heartbeating, so that a worker killed in the middle is noticed within the
 * activity's heartbeat timeout (seconds) instead of its start-to-close timeout (minutes), and the
 * retry runs on another worker. Only for activities whose effects are safe to run again.
 */
export async function heartbeating<T>(work: () => Promise<T>, progress?: () => unknown): Promise<T> {
  const context = Context.current();
  // A local activity has no heartbeat: its workflow task's timeout notices a dead worker.
  if (context.info.isLocal) return work();
  context.heartbeat(progress?.());
  // The progress given goes with each heartbeat: the Temporal UI shows how far the activity got.
  const timer = setInterval(() => context.heartbeat(progress?.()), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
