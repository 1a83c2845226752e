import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import { ATTACHMENTS_REMOVAL } from '../contract.ts';

const { removeUnusedAttachments } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/**
 * Started every 10 minutes by the `attachments-removal` schedule: removes attachments no object
 * holds an hour after their upload, in batches until a batch comes back short (or `maxBatches`,
 * the rest waiting for the next run). The time is the workflow's, so a time-skipping test moves it.
 */
export async function attachmentsRemoval(): Promise<{ removed: number; batches: number }> {
  const now = new Date(Date.now()).toISOString();
  const { batchSize, maxBatches } = ATTACHMENTS_REMOVAL;
  let removed = 0;
  let batches = 0;
  while (batches < maxBatches) {
    const n = (await removeUnusedAttachments({ now, batchSize })).removed;
    removed += n;
    batches++;
    if (n < batchSize) break;
  }
  return { removed, batches };
}
