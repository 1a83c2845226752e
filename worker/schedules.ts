import { type Client, ScheduleAlreadyRunning, type ScheduleOptions } from '@temporalio/client';
import { appLogRetentionSchedule } from './app-log-retention-schedule.ts';
import { branchSweepSchedule } from './branch-sweep-schedule.ts';
import { ontologyChangesRetentionSchedule } from './ontology-changes-retention-schedule.ts';
import { monthlyUsageResetSchedule } from './usage-schedule.ts';

/** The product's own Temporal Schedules, each under a fixed id. */
export const PRODUCT_SCHEDULES: readonly ScheduleOptions[] = [
  appLogRetentionSchedule,
  monthlyUsageResetSchedule,
  ontologyChangesRetentionSchedule,
  branchSweepSchedule,
];

/**
 * Creates the schedule unless one with its id exists. Every worker calls this at start: the first
 * creates it, every later one (or a second worker racing it) finds it. An existing schedule is
 * left as it is (an operator may have paused it).
 */
export async function ensureSchedule(client: Client, options: ScheduleOptions): Promise<'created' | 'existing'> {
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return 'existing';
    throw err;
  }
}

export async function ensureProductSchedules(client: Client): Promise<Record<string, 'created' | 'existing'>> {
  const outcomes: Record<string, 'created' | 'existing'> = {};
  for (const options of PRODUCT_SCHEDULES) outcomes[options.scheduleId] = await ensureSchedule(client, options);
  return outcomes;
}
