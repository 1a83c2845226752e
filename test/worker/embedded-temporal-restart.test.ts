import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue } from '../../domain/outbox/repository.ts';
import { AesGcmPayloadCodec, generatedPayloadKey } from '../../infra/temporal-codec/payload-codec.ts';
import { PRODUCT_SCHEDULES } from '../../worker/schedules.ts';
import { deviceLoginWorkflowId } from '../../workflows/contract.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type StartedProcess, startProcess } from '../support/process.ts';

// `npm start` without TEMPORAL_ADDRESS keeps the embedded Temporal server's state in the data
// folder: a workflow sleeping when the process is killed wakes up on time in the next process, a
// schedule keeps firing, and the Web UI's API lists both.
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
  // svc seals its payloads with the data folder's generated key, which a restart keeps: reading a result needs it.
  const key = await generatedPayloadKey(dataDir, { create: false });
  return new Client({
    connection: await Connection.connect({ address: address![1]! }),
    dataConverter: { payloadCodecs: [new AesGcmPayloadCodec([key!])] },
  });
}

const uiOf = (svc: StartedProcess) => /Temporal UI: +(\S+)/.exec(svc.output())![1]!;
/** What the Web UI shows, read through the same /api/v1 routes its pages call. */
async function uiJson(svc: StartedProcess, route: string): Promise<any> {
  const res = await fetch(`${uiOf(svc)}/api/v1/namespaces/default/${route}`);
  expect(res.status).toBe(200);
  return res.json();
}

describe('the embedded Temporal server', () => {
  it('wakes a workflow that slept through a SIGKILL of `npm start` on time after the next start; a schedule keeps firing', async () => {
    const env = { DATABASE_URL: database.url, SVC_DATA_DIR: dataDir, SVC_TEMPORAL_UI_PORT: '0' };
    const first = await startProcess([], env);
    const client = await temporalClient(first);
    // No worker polls this queue: each firing starts a run that waits, which is all a count needs.
    const schedule = await client.schedule.create({
      scheduleId: 'probe',
      spec: { intervals: [{ every: '1s' }] },
      action: { type: 'startWorkflow', workflowType: 'probe', taskQueue: 'probe-queue', workflowId: 'probe' },
      policies: { overlap: 'ALLOW_ALL' },
    });
    await expect.poll(async () => (await schedule.describe()).info.numActionsTaken, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
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
      const taken = (await after.schedule.getHandle('probe').describe()).info.numActionsTaken;
      expect(taken).toBeGreaterThanOrEqual(1);
      await expect
        .poll(async () => (await after.schedule.getHandle('probe').describe()).info.numActionsTaken, { timeout: 10_000 })
        .toBeGreaterThan(taken);
      // The UI lists the sleeping run and the schedules (and the runs the schedule started).
      const listed = await uiJson(second, 'workflows?query=');
      const ids = listed.executions.map((e: { execution: { workflowId: string } }) => e.execution.workflowId);
      expect(ids).toContain(deviceLoginWorkflowId('dev_restart'));
      expect(ids.some((id: string) => id.startsWith('probe-'))).toBe(true);
      const schedules = await uiJson(second, 'schedules');
      // With the product's own schedules, created at the first start and found again after the restart.
      expect(schedules.schedules.map((s: { scheduleId: string }) => s.scheduleId).sort()).toEqual(
        ['probe', ...PRODUCT_SCHEDULES.map((p) => p.scheduleId)].sort(),
      );
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
