import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { monthlyUsageReset } from '../workflows/monthly-usage-reset.ts';
import { MONTHLY_USAGE_RESET_SCHEDULE_ID, MONTHLY_USAGE_RESET_WORKFLOW_ID, TASK_QUEUE } from './shared.ts';

/**
 * The monthly quota reset as a Temporal Schedule: 00:00 UTC on the 1st. Created at every worker
 * start under a fixed id, so the first start creates it and every later one (or a second worker
 * racing it) finds it. A run missed while Temporal was down is caught up within 31 days; it would
 * change nothing anyway, because counters are keyed by month (domain/usage/record-monthly-reset.ts).
 */
export async function ensureMonthlyResetSchedule(client: Client): Promise<'created' | 'existing'> {
  try {
    await client.schedule.create<typeof monthlyUsageReset>({
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
    });
    return 'created';
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return 'existing';
    throw err;
  }
}
