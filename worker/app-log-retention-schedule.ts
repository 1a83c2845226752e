import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { APP_LOG_RETENTION, TASK_QUEUE } from './shared.ts';

/**
 * Creates the daily retention schedule of the app log (03:30 UTC) unless it exists: every worker
 * calls this at start, and the fixed schedule id makes all but the first a no-op. An existing
 * schedule is left as it is (an operator may have paused it).
 */
export async function ensureAppLogRetentionSchedule(client: Client): Promise<'created' | 'exists'> {
  try {
    await client.schedule.create({
      scheduleId: APP_LOG_RETENTION.scheduleId,
      spec: { calendars: [{ hour: 3, minute: 30 }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'appLogRetention',
        args: [],
        taskQueue: TASK_QUEUE,
        workflowId: APP_LOG_RETENTION.workflowId,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
    });
    return 'created';
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return 'exists';
    throw err;
  }
}
