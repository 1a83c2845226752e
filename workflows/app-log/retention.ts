import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import { APP_LOG_RETENTION } from '../contract.ts';

const { purgeExpiredLogEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/**
 * Started daily by the `app-log-retention` schedule: deletes usage and error events past their 180
 * days in batches until none are left (or `maxBatches`, the rest waiting for the next day).
 * The cutoff is the workflow's time, so a time-skipping test moves it.
 */
export async function appLogRetention(): Promise<{ deleted: number; batches: number }> {
  const now = new Date(Date.now()).toISOString();
  let deleted = 0;
  let batches = 0;
  while (batches < APP_LOG_RETENTION.maxBatches) {
    const n = await purgeExpiredLogEvents({ now, batchSize: APP_LOG_RETENTION.batchSize });
    deleted += n;
    batches++;
    if (n < APP_LOG_RETENTION.batchSize) break;
  }
  return { deleted, batches };
}
