import { type ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { MONTHLY_USAGE_RESET_SCHEDULE_ID, MONTHLY_USAGE_RESET_WORKFLOW_ID, TASK_QUEUE } from '../workflows/contract.ts';

/**
 * The monthly quota reset: 00:00 UTC on the 1st. A run missed while Temporal was down is caught
 * up within 31 days; it would change nothing anyway, because counters are keyed by month
 * (domain/usage/record-monthly-reset.ts).
 */
export const monthlyUsageResetSchedule: ScheduleOptions = {
  scheduleId: MONTHLY_USAGE_RESET_SCHEDULE_ID,
  spec: { calendars: [{ dayOfMonth: 1, hour: 0, minute: 0, comment: '00:00 UTC on the 1st of each month' }], timezone: 'UTC' },
  action: {
    type: 'startWorkflow',
    workflowType: 'monthlyUsageReset',
    args: [],
    taskQueue: TASK_QUEUE,
    workflowId: MONTHLY_USAGE_RESET_WORKFLOW_ID,
  },
  policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '31 days' },
};
