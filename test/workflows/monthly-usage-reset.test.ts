import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { nextMonthStart, periodOf } from '../../domain/usage/meters.ts';
import { recordUsage } from '../../domain/usage/record-usage.ts';
import { ensureSchedule } from '../../worker/schedules.ts';
import { monthlyUsageResetSchedule } from '../../worker/usage-schedule.ts';
import { MONTHLY_USAGE_RESET_SCHEDULE_ID, TASK_QUEUE } from '../../workflows/contract.ts';
import type { TestDatabase } from '../support/database.ts';
import { insertApps } from '../support/usage.ts';
import { useWorkflowTestEnv } from '../support/workflow-env.ts';

// The monthly reset on the embedded server with time skipping: the server's clock crosses a
// month boundary in no time, the Schedule starts the reset at 00:00 UTC on the 1st, and the reset
// records the new month with the apps that had used up the month before.

let env: TestWorkflowEnvironment;
let database: TestDatabase;
useWorkflowTestEnv((started) => {
  ({ env, database } = started);
});

async function resets() {
  return database.db.selectFrom('usage_resets').selectAll().orderBy('period').execute();
}

describe('monthly usage reset schedule', () => {
  it('is created once under its fixed id, runs at 00:00 UTC on the 1st and records the month it opens', async () => {
    expect(await ensureSchedule(env.client, monthlyUsageResetSchedule)).toBe('created');
    expect(await ensureSchedule(env.client, monthlyUsageResetSchedule)).toBe('existing');

    const now = new Date(await env.currentTimeMs());
    const boundary = nextMonthStart(now);
    const thisMonth = periodOf('month', now);
    const [spent, light] = await insertApps(database.db, ['spent', 'light']);
    await recordUsage(database.db, [
      { appId: spent!, meter: 'compute.live', amount: 2000 * 60_000, at: now },
      { appId: light!, meter: 'compute.model', amount: 10 * 60_000, at: now },
    ]);

    const handle = env.client.schedule.getHandle(MONTHLY_USAGE_RESET_SCHEDULE_ID);
    const before = await handle.describe();
    expect(before.info.nextActionTimes[0]).toEqual(boundary);
    expect(await resets()).toEqual([]);

    // Across the boundary on the server's clock (days pass in milliseconds).
    await env.sleep(boundary.getTime() - now.getTime() + 60_000);
    let rows = await resets();
    for (let i = 0; rows.length === 0 && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await resets();
    }
    const nextMonth = periodOf('month', boundary);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ period: nextMonth, reenabled_app_ids: [spent] });
    expect(rows[0]!.ran_at.getTime()).toBeGreaterThanOrEqual(boundary.getTime());
    expect(periodOf('month', rows[0]!.ran_at)).not.toBe(thisMonth);

    const after = await handle.describe();
    expect(after.info.numActionsTaken).toBe(1);
    expect(after.info.nextActionTimes[0]).toEqual(nextMonthStart(boundary));
    await handle.delete();
  });

  it('records a month once, however often the reset runs', async () => {
    const first = await env.client.workflow.execute('monthlyUsageReset', { taskQueue: TASK_QUEUE, workflowId: 'reset-again-1' });
    const second = await env.client.workflow.execute('monthlyUsageReset', { taskQueue: TASK_QUEUE, workflowId: 'reset-again-2' });
    expect(first).toMatchObject({ recorded: false });
    expect(second).toMatchObject({ recorded: false, month: first.month, ranAt: first.ranAt });
    expect(await resets()).toHaveLength(1);
  });
});
