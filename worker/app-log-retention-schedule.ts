import { type ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { APP_LOG_RETENTION, TASK_QUEUE } from '../workflows/contract.ts';

/** The app log's daily retention run (03:30 UTC). */
export const appLogRetentionSchedule: ScheduleOptions = {
  scheduleId: APP_LOG_RETENTION.scheduleId,
  spec: { calendars: [{ hour: 3, minute: 30 }], timezone: 'UTC' },
  action: {
    type: 'startWorkflow',
    workflowType: 'appLogRetention',
    args: [],
    taskQueue: TASK_QUEUE,
    workflowId: APP_LOG_RETENTION.workflowId,
  },
  policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
};
