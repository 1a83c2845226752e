import { createHash } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { cachedBlobStore, postgresBlobBackend, postgresBlobLedger } from '../../domain/apps/index.ts';
import { blobSweepSchedule } from '../../worker/blob-sweep-schedule.ts';
import { ensureSchedule, PRODUCT_SCHEDULES } from '../../worker/schedules.ts';
import { BLOB_SWEEP, TASK_QUEUE } from '../../workflows/contract.ts';
import type { TestDatabase } from '../support/database.ts';
import { until, useWorkflowTestEnv } from '../support/workflow-env.ts';

// The blob sweep as the worker runs it: a product schedule every 6 hours, whose workflow (one
// heartbeating activity) deletes an unreferenced blob past the grace period; started by hand with
// dryRun it only counts.

let env: TestWorkflowEnvironment;
let database: TestDatabase;
useWorkflowTestEnv((started) => {
  ({ env, database } = started);
});

describe('blob sweep', () => {
  it('is a product schedule; a dry run counts, a run deletes the unreferenced blob past its grace period', async () => {
    expect(PRODUCT_SCHEDULES).toContain(blobSweepSchedule);
    const store = cachedBlobStore(postgresBlobBackend(database.db), 0, postgresBlobLedger(database.db));
    const bytes = Buffer.from('nobody names me');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await store.put([{ sha256, bytes }]);
    await database.db.updateTable('blob_writes').set({ written_at: sql`now() - interval '2 days'` }).execute();
    const stored = async () => (await database.db.selectFrom('blobs').select('sha256').execute()).length;

    const dry = await env.client.workflow.execute('blobSweep', {
      taskQueue: TASK_QUEUE,
      workflowId: 'blob-sweep-dry',
      args: [{ dryRun: true }],
    });
    expect(dry).toEqual({ examined: 1, removed: 1, dryRun: true });
    expect(await stored()).toBe(1);

    expect(await ensureSchedule(env.client, blobSweepSchedule)).toBe('created');
    await env.sleep('6h');
    expect(await until(stored, (n) => n === 0)).toBe(0);
    await env.client.schedule.getHandle(BLOB_SWEEP.scheduleId).delete();
  });
});
