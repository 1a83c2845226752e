import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { deviceLoginClosed, deviceLoginWorkflowId, TASK_QUEUE } from '../../workflows/contract.ts';
import type { TestDatabase } from '../support/database.ts';
import { useWorkflowTestEnv } from '../support/workflow-env.ts';

// The product workflow on the embedded server with time skipping: ten minutes pass in no time.

let env: TestWorkflowEnvironment;
let database: TestDatabase;
useWorkflowTestEnv((started) => {
  ({ env, database } = started);
});

async function insertLogin(id: string, status: 'pending' | 'approved' | 'denied') {
  const expiresAt = new Date((await env.currentTimeMs()) + 10 * 60_000);
  await sql`INSERT INTO device_logins (id, device_code_hash, user_code, client_name, status, interval_seconds, expires_at)
    VALUES (${id}, sha256(${id}::bytea), ${id.slice(-8).toUpperCase()}, 'test', ${status}, 5, ${expiresAt})`.execute(database.db);
  return expiresAt;
}
const statusOf = async (id: string) =>
  (await sql<{ status: string }>`SELECT status FROM device_logins WHERE id = ${id}`.execute(database.db)).rows[0]!.status;

describe('deviceLoginExpiry workflow', () => {
  it('marks an undecided login expired when its time is up', async () => {
    const expiresAt = await insertLogin('dev_waitingforever', 'pending');
    const result = await env.client.workflow.execute('deviceLoginExpiry', {
      taskQueue: TASK_QUEUE,
      workflowId: deviceLoginWorkflowId('dev_waitingforever'),
      args: [{ deviceLoginId: 'dev_waitingforever', expiresAt: expiresAt.toISOString() }],
    });
    expect(result).toBe('expired');
    expect(await statusOf('dev_waitingforever')).toBe('expired');
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(expiresAt.getTime());
  });

  it('also expires an approved login whose key was never fetched', async () => {
    const expiresAt = await insertLogin('dev_approvedbutidle', 'approved');
    await env.client.workflow.execute('deviceLoginExpiry', {
      taskQueue: TASK_QUEUE,
      workflowId: deviceLoginWorkflowId('dev_approvedbutidle'),
      args: [{ deviceLoginId: 'dev_approvedbutidle', expiresAt: expiresAt.toISOString() }],
    });
    expect(await statusOf('dev_approvedbutidle')).toBe('expired');
  });

  it('ends at once when the login is redeemed or denied, leaving the row as it is', async () => {
    const expiresAt = await insertLogin('dev_deniedquickly', 'denied');
    const handle = await env.client.workflow.start('deviceLoginExpiry', {
      taskQueue: TASK_QUEUE,
      workflowId: deviceLoginWorkflowId('dev_deniedquickly'),
      args: [{ deviceLoginId: 'dev_deniedquickly', expiresAt: expiresAt.toISOString() }],
    });
    const before = await env.currentTimeMs();
    await handle.signal(deviceLoginClosed, 'denied');
    expect(await handle.result()).toBe('denied');
    expect(await statusOf('dev_deniedquickly')).toBe('denied');
    expect((await env.currentTimeMs()) - before).toBeLessThan(10 * 60_000);
  });
});
