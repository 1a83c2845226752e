import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import type { BlobSweepInput } from '../contract.ts';

// The store may hold millions of blobs: no overall deadline a slow store could miss, a heartbeat
// every second, and a retry resumes from the last page the heartbeat reported.
const { sweepUnreferencedBlobs } = proxyActivities<Activities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '30 seconds', maximumInterval: '10 minutes' },
});

/**
 * Started every 6 hours by the `blob-sweep` schedule: deletes the blobs nothing names that nobody
 * wrote or re-used within the grace period. The time is the workflow's, so a time-skipping test moves it.
 */
export async function blobSweep(input: BlobSweepInput = {}): Promise<{ examined: number; removed: number; dryRun: boolean }> {
  const dryRun = input.dryRun === true;
  const { examined, removed } = await sweepUnreferencedBlobs({ now: new Date(Date.now()).toISOString(), dryRun });
  return { examined, removed, dryRun };
}
