import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue } from '../../domain/outbox/repository.ts';
import { deviceLoginWorkflowId } from '../../worker/shared.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type StartedProcess, startProcess } from '../support/process.ts';

// `npm start` without TEMPORAL_ADDRESS keeps the embedded Temporal server's state in the data
// folder: a workflow sleeping when the process is killed wakes up on time in the next process.
// The database is a test one (an embedded PostgreSQL would outlive a SIGKILL of its owner).

let database: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-temporal-restart-'));
});
afterAll(async () => {
  await database?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function temporalClient(svc: StartedProcess): Promise<Client> {
  const address = /temporal: +(\S+) \(embedded server, local use only; state in (\S+)\)/.exec(svc.output());
  expect(address?.[2]).toBe(path.join(dataDir, 'temporal', 'temporal.sqlite'));
  return new Client({ connection: await Connection.connect({ address: address![1]! }) });
}

describe('the embedded Temporal server', () => {
  it('wakes a workflow that slept through a SIGKILL of `npm start` on time after the next start', async () => {
    const env = { DATABASE_URL: database.url, SVC_DATA_DIR: dataDir };
    const first = await startProcess([], env);
    const client = await temporalClient(first);
    // The device login's expiry workflow sleeps until expiresAt (the relay starts it from the outbox).
    const expiresAt = Date.now() + 20_000;
    await enqueue(database.db, {
      topic: 'device-login.started',
      key: 'dev_restart',
      payload: { expiresAt: new Date(expiresAt).toISOString() },
    });
    const handle = client.workflow.getHandle(deviceLoginWorkflowId('dev_restart'));
    await expect
      .poll(async () => (await handle.fetchHistory().catch(() => undefined))?.events?.some((e) => e.timerStartedEventAttributes), {
        timeout: 15_000,
      })
      .toBe(true);
    // Delivered and gone from the outbox: only the Temporal state file can bring the run back.
    await expect.poll(() => database.db.selectFrom('outbox').selectAll().execute()).toEqual([]);
    const { runId } = await handle.describe();
    await client.connection.close();
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startProcess([], env);
    const after = await temporalClient(second);
    try {
      expect(Date.now()).toBeLessThan(expiresAt); // else the timer would fire at once, proving little
      const restarted = after.workflow.getHandle(deviceLoginWorkflowId('dev_restart'));
      expect((await restarted.describe()).runId).toBe(runId);
      expect(await restarted.result()).toBe('expired');
      const fired = (await restarted.fetchHistory()).events!.find((e) => e.timerFiredEventAttributes)!.eventTime!;
      const firedAt = Number(fired.seconds) * 1000 + Math.floor(fired.nanos! / 1e6);
      expect(firedAt - expiresAt).toBeGreaterThanOrEqual(-50);
      expect(firedAt - expiresAt).toBeLessThan(1000);
    } finally {
      await after.connection.close();
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  }, 90_000);
});
