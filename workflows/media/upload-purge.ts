import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import { MEDIA_UPLOAD_PURGE } from '../contract.ts';

const { purgeAbandonedMediaUploads } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/**
 * Started hourly by the `media-upload-purge` schedule: abandoned upload sessions (OPEN, untouched
 * for MEDIA_LIMITS.abandonedUploadHours) become PURGED, in batches. The time is the workflow's,
 * so a time-skipping test moves it.
 */
export async function mediaUploadPurge(): Promise<{ purged: number; batches: number }> {
  const now = new Date(Date.now()).toISOString();
  let purged = 0;
  let batches = 0;
  while (batches < MEDIA_UPLOAD_PURGE.maxBatches) {
    const n = await purgeAbandonedMediaUploads({ now, batchSize: MEDIA_UPLOAD_PURGE.batchSize });
    purged += n;
    batches++;
    if (n < MEDIA_UPLOAD_PURGE.batchSize) break;
  }
  return { purged, batches };
}
