import { type ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { ATTACHMENTS_REMOVAL, TASK_QUEUE } from '../workflows/contract.ts';

/** Removes unused attachments every 10 minutes. */
export const attachmentsRemovalSchedule: ScheduleOptions = {
  scheduleId: ATTACHMENTS_REMOVAL.scheduleId,
  spec: { intervals: [{ every: ATTACHMENTS_REMOVAL.every }] },
  action: {
    type: 'startWorkflow',
    workflowType: 'attachmentsRemoval',
    args: [],
    taskQueue: TASK_QUEUE,
    workflowId: ATTACHMENTS_REMOVAL.workflowId,
  },
  policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10 minutes' },
};
