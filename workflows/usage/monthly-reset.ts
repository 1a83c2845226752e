import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';

const { recordMonthlyReset } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

/**
 * Started by the monthly Schedule at 00:00 UTC on the 1st. The month is the workflow's time
 * (the server's clock), so a time-skipped test server and a caught-up run after downtime both
 * name the month they run in.
 */
export async function monthlyUsageReset() {
  return recordMonthlyReset(new Date().toISOString());
}
