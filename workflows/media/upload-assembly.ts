import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import type { MediaUploadAssemblyInput } from '../contract.ts';

// Assembly reads and writes up to 50 GB: no overall deadline that a slow store could miss, but a
// heartbeat every second, so a worker that dies mid-assembly is noticed in 30 s and the retry
// (from the start: storing the item is idempotent) runs on a live worker.
const { assembleMediaUpload } = proxyActivities<Activities>({
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});
const { attachMediaUpload } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

/**
 * One upload session's completion (started through the outbox when it became COMPLETING): its
 * parts streamed into one item and hashed, then the item attached to the object's property
 * (COMPLETED); a session the assembly cannot make into its item ends FAILED with the reason.
 */
export async function mediaUploadAssembly(input: MediaUploadAssemblyInput): Promise<string> {
  const assembled = await assembleMediaUpload(input);
  if (assembled.outcome !== 'assembled') return assembled.outcome === 'failed' ? `failed: ${assembled.code}` : 'skipped';
  return attachMediaUpload({ uploadId: input.uploadId, sha256: assembled.sha256, size: assembled.size });
}
