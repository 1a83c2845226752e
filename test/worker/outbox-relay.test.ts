import { startTemporalDevServer, type TemporalDevServer } from '@svc/temporal-dev';
import { Client, Connection } from '@temporalio/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue } from '../../domain/outbox/repository.ts';
import { relayDue } from '../../worker/outbox-relay.ts';
import { ensureSearchAttributes } from '../../worker/search-attributes.ts';
import { appApiRunWorkflowId, deviceLoginWorkflowId } from '../../workflows/contract.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startProcess } from '../support/process.ts';

// The transactional outbox: intents commit with their change and reach Temporal even when
// the process that wrote them dies first; delivering one twice changes nothing.

let cluster: TemporalDevServer;
let database: TestDatabase;
let connection: Connection;
let client: Client;
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  cluster = await startTemporalDevServer({ namespaces: ['default'] });
  database = await createTestDatabase();
  connection = await Connection.connect({ address: cluster.address });
  client = new Client({ connection });
  // As the worker does at start: the relay's starts carry svc's search attributes.
  await ensureSearchAttributes(client, 'default');
});
afterAll(async () => {
  await connection?.close();
  await database?.drop();
  await cluster?.stop();
});

const outboxRows = () => database.db.selectFrom('outbox').selectAll().orderBy('created_at').execute();
// Raw describe: a run the worker process started carries a memo sealed with its key, which this client cannot open.
const status = (id: string) =>
  client.workflowService.describeWorkflowExecution({ namespace: 'default', execution: { workflowId: deviceLoginWorkflowId(id) } }).then(
    // temporal.api.enums.v1.WorkflowExecutionStatus 1 is RUNNING.
    (d) => (d.workflowExecutionInfo?.status === 1 ? 'RUNNING' : `status ${d.workflowExecutionInfo?.status}`),
    () => 'not started',
  );
const startEvent = (id: string) => ({
  topic: 'device-login.started' as const,
  key: id,
  payload: { expiresAt: new Date(Date.now() + 600_000).toISOString() },
});

describe('outbox relay', () => {
  it('delivers nothing of a rolled-back transaction, and each committed intent once, in order', async () => {
    await database.db
      .transaction()
      .execute(async (trx) => {
        await enqueue(trx, startEvent('dev_rolledback'));
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await outboxRows()).toEqual([]);

    await database.db.transaction().execute(async (trx) => {
      await enqueue(trx, startEvent('dev_ordered'));
      await enqueue(trx, { topic: 'device-login.closed', key: 'dev_ordered', payload: { reason: 'denied' } });
    });
    expect((await outboxRows()).map((r) => r.topic)).toEqual(['device-login.started', 'device-login.closed']);
    expect(await relayDue({ db: database.db, client, logger: silent })).toBe(2);
    expect(await outboxRows()).toEqual([]);
    // The signal reached the started run: it is in the run's history.
    const history = await client.workflow.getHandle(deviceLoginWorkflowId('dev_ordered')).fetchHistory();
    expect(history.events!.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'deviceLoginClosed')).toBe(true);
    expect(await status('dev_rolledback')).toBe('not started');
  });

  it('keeps an intent it could not deliver, with the error, and retries it later', async () => {
    const unreachable = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    await enqueue(database.db, startEvent('dev_retry'));
    expect(await relayDue({ db: database.db, client: unreachable, logger: silent, deadlineMs: 300 })).toBe(0);
    const [row] = await outboxRows();
    expect(row).toMatchObject({ key: 'dev_retry', attempts: 1 });
    expect(row!.last_error).toBeTruthy();
    expect(row!.next_attempt_at.getTime()).toBeGreaterThan(Date.now());
    // Not due yet: a pass leaves it alone; once due, it is delivered.
    expect(await relayDue({ db: database.db, client, logger: silent })).toBe(0);
    await database.db.updateTable('outbox').set({ next_attempt_at: new Date() }).execute();
    expect(await relayDue({ db: database.db, client, logger: silent })).toBe(1);
    expect(await status('dev_retry')).toBe('RUNNING');
  });

  it('treats a repeated delivery (a relay died before deleting the row) as done, with one workflow', async () => {
    await enqueue(database.db, startEvent('dev_twice'));
    await relayDue({ db: database.db, client, logger: silent });
    await enqueue(database.db, startEvent('dev_twice'));
    expect(await relayDue({ db: database.db, client, logger: silent })).toBe(1);
    expect(await outboxRows()).toEqual([]);
    expect((await client.workflow.count(`WorkflowId = "${deviceLoginWorkflowId('dev_twice')}"`)).count).toBe(1);
  });

  it('answers an intent delivered again after its run closed with that run, not a second one (the first answer was lost)', async () => {
    // An app run's start: its workflow id allows a new run once the first has closed.
    const event = { topic: 'app-workflow.run' as const, key: 'run_lost', payload: { appId: 'app_x', runId: 'run_lost' } };
    await enqueue(database.db, event);
    const [intent] = await outboxRows();
    expect(await relayDue({ db: database.db, client, logger: silent })).toBe(1);
    const handle = client.workflow.getHandle(appApiRunWorkflowId('run_lost'));
    await handle.terminate('closed before the relay tries again');
    // The relay whose answer was lost never deleted its row: the same intent comes again.
    await database.db
      .insertInto('outbox')
      .values({ id: intent!.id, topic: event.topic, key: event.key, payload: JSON.stringify(event.payload) })
      .execute();
    expect(await relayDue({ db: database.db, client, logger: silent })).toBe(1);
    expect((await client.workflow.count(`WorkflowId = "${appApiRunWorkflowId('run_lost')}"`)).count).toBe(1);
  });

  it('starts the workflow after a restart when the process died between commit and delivery', async () => {
    // An API process commits the device login and its intent, then is killed before anything delivers it.
    const api = await startProcess(['api'], { DATABASE_URL: database.url });
    const res = await fetch(`${api.ready}/api/v1/developer/device-codes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(201);
    api.child.kill('SIGKILL');
    await api.exited;
    const [intent] = await outboxRows();
    expect(intent).toMatchObject({ topic: 'device-login.started', attempts: 0 });
    expect(await status(intent!.key)).toBe('not started');

    // The next process with a relay delivers it.
    const worker = await startProcess(['worker'], { DATABASE_URL: database.url, TEMPORAL_ADDRESS: cluster.address }, /svc worker started/);
    try {
      await expect.poll(() => status(intent!.key), { timeout: 15_000 }).toBe('RUNNING');
      await expect.poll(outboxRows).toEqual([]);
    } finally {
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    }
  }, 60_000);
});
