import { type ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { BRANCH_SWEEP, TASK_QUEUE } from '../workflows/contract.ts';

/** The daily sweep of definition branches (04:00 UTC). */
export const branchSweepSchedule: ScheduleOptions = {
  scheduleId: BRANCH_SWEEP.scheduleId,
  spec: { calendars: [{ hour: 4, minute: 0 }], timezone: 'UTC' },
  action: {
    type: 'startWorkflow',
    workflowType: 'ontologyBranchSweep',
    args: [],
    taskQueue: TASK_QUEUE,
    workflowId: BRANCH_SWEEP.workflowId,
  },
  policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
};
