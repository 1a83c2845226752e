import { type ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { MEDIA_UPLOAD_PURGE, TASK_QUEUE } from '../workflows/contract.ts';

/** The hourly purge of abandoned media upload sessions (at minute 20, away from the other maintenance runs). */
export const mediaUploadPurgeSchedule: ScheduleOptions = {
  scheduleId: MEDIA_UPLOAD_PURGE.scheduleId,
  spec: { calendars: [{ hour: '*', minute: 20 }], timezone: 'UTC' },
  action: {
    type: 'startWorkflow',
    workflowType: 'mediaUploadPurge',
    args: [],
    taskQueue: TASK_QUEUE,
    workflowId: MEDIA_UPLOAD_PURGE.workflowId,
  },
  policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
};
