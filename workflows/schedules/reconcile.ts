import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';

// No retries beyond a second attempt: the schedule starts the next pass a few minutes later anyway.
const { reconcileSchedules } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 2 },
});

/** Started by its own Schedule: svc's product and app schedules made to match svc's state (see worker/schedules.ts). */
export async function scheduleReconciliation() {
  return reconcileSchedules();
}
