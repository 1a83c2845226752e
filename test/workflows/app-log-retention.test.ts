import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { writeLogRecords } from '../../domain/app-log/write-log-record.ts';
import type { LogKind } from '../../domain/db/database.ts';
import { appLogRetentionSchedule } from '../../worker/app-log-retention-schedule.ts';
import { ensureSchedule } from '../../worker/schedules.ts';
import { APP_LOG_RETENTION, TASK_QUEUE } from '../../workflows/contract.ts';
import type { TestDatabase } from '../support/database.ts';
import { useWorkflowTestEnv } from '../support/workflow-env.ts';

// The app log's retention schedule on the embedded server with time skipping: a day passes in no
// time, the schedule starts the purge, usage and errors past 180 days go, the rest stays.

const DAY = 86_400_000;
let env: TestWorkflowEnvironment;
let database: TestDatabase;
useWorkflowTestEnv(async (started) => {
  ({ env, database } = started);
  await sql`INSERT INTO accounts (id, username, email, status) VALUES ('acc_retention', 'ret', 'ret@example.com', 'active')`.execute(
    database.db,
  );
  await sql`INSERT INTO apps (id, namespace, slug, created_by) VALUES ('app_retention', 'public', 'ret', 'acc_retention')`.execute(
    database.db,
  );
});

const remaining = async () => (await database.db.selectFrom('app_log_events').select('name').orderBy('name').execute()).map((r) => r.name);

describe('app log retention', () => {
  it('creates its schedule once, then purges expired usage and errors daily, keeping feedback, actions and shares', async () => {
    const now = await env.currentTimeMs();
    const at = (daysAgo: number) => new Date(now - daysAgo * DAY);
    const record = (kind: LogKind, name: string, daysAgo: number) => ({
      appId: 'app_retention',
      at: at(daysAgo),
      kind,
      source: 'app' as const,
      name,
      accountId: 'acc_retention',
      data: {},
    });
    await writeLogRecords(database.db, [
      record('usage', 'old-usage', 200),
      record('error', 'old-error', 181),
      record('feedback', 'old-feedback', 400),
      record('action', 'old-action', 400),
      record('share', 'old-share', 400),
      record('usage', 'recent-usage', 100),
      record('error', 'recent-error', 10),
    ]);
    await database.db
      .insertInto('app_log_error_counts')
      .values({ app_id: 'app_retention', account_id: 'acc_retention', day: at(181).toISOString().slice(0, 10), class: 'E', seen: 12 })
      .execute();

    expect(await ensureSchedule(env.client, appLogRetentionSchedule)).toBe('created');
    expect(await ensureSchedule(env.client, appLogRetentionSchedule)).toBe('existing');
    const described = await env.client.schedule.getHandle(APP_LOG_RETENTION.scheduleId).describe();
    expect(described.spec.calendars?.[0]).toMatchObject({
      hour: [{ start: 3, end: 3, step: 1 }],
      minute: [{ start: 30, end: 30, step: 1 }],
    });

    await env.sleep('25h');
    for (let i = 0; i < 200 && (await remaining()).includes('old-usage'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await remaining()).toEqual(['old-action', 'old-feedback', 'old-share', 'recent-error', 'recent-usage']);
    expect(await database.db.selectFrom('app_log_error_counts').select('day').execute()).toEqual([]);
    // The day counts of purged usage and errors go too; those of kept kinds stay.
    const daily = await database.db.selectFrom('app_log_daily').select('name').orderBy('name').execute();
    expect(daily.map((d) => d.name)).toEqual(['old-action', 'old-feedback', 'old-share', 'recent-error', 'recent-usage']);
    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowType = 'appLogRetention'` })) runs.push(run);
    expect(runs.length).toBeGreaterThanOrEqual(1);
    await env.client.schedule.getHandle(APP_LOG_RETENTION.scheduleId).delete();
  });

  it('purges a backlog larger than one batch in several batches', async () => {
    const now = await env.currentTimeMs();
    const old = new Date(now - 300 * DAY);
    await sql`INSERT INTO app_log_events (id, app_id, at, kind, source, name, data)
      SELECT 'log_bulk' || g, 'app_retention', ${old}, 'usage', 'app', 'bulk', '{}' FROM generate_series(1, ${APP_LOG_RETENTION.batchSize + 10}) g`.execute(
      database.db,
    );
    const result = await env.client.workflow.execute('appLogRetention', { taskQueue: TASK_QUEUE, workflowId: 'app-log-retention-backlog' });
    expect(result).toEqual({ deleted: APP_LOG_RETENTION.batchSize + 10, batches: 2 });
    expect(await remaining()).not.toContain('bulk');
  });
});
