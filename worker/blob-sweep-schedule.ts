import { type ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { BLOB_SWEEP, TASK_QUEUE } from '../workflows/contract.ts';

/** Deletes unreferenced blobs every 6 hours (a run still going when the next is due: the next is skipped). */
export const blobSweepSchedule: ScheduleOptions = {
  scheduleId: BLOB_SWEEP.scheduleId,
  spec: { intervals: [{ every: BLOB_SWEEP.every }] },
  action: {
    type: 'startWorkflow',
    workflowType: 'blobSweep',
    args: [],
    taskQueue: TASK_QUEUE,
    workflowId: BLOB_SWEEP.workflowId,
  },
  policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
};
