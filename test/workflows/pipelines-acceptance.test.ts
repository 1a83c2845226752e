import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAutomation } from '../../domain/automate/create-automation.ts';
import { createConnection, createSync, getBuild, listBuilds } from '../../domain/connectivity/index.ts';
import type { Db } from '../../domain/db/database.ts';
import { systemClock } from '../../domain/deps.ts';
import { defineObjectTypes } from '../../domain/ontology/define-object-types.ts';
import { findObjectTypeRecord, findOntologyOfCompany, objectTable } from '../../domain/ontology/index.ts';
import { smtpMailer } from '../../infra/mail/smtp-mailer.ts';
import { CreateAutomationInput } from '../../schemas/automate.ts';
import { CreateSyncInput } from '../../schemas/connectivity.ts';
import { relayDue } from '../../worker/outbox-relay.ts';
import { dataSyncScheduleId } from '../../workflows/contract.ts';
import { FLOW_COMPANY, FLOW_DEVELOPER, publishWorkflow, RECIPIENTS, seedFlowCompany, startSmtpSink } from '../support/app-workflows.ts';
import { createSourceDatabase, lockSourceTable, type SourceDatabase, testConnectivity } from '../support/connectivity.ts';
import { SALES } from '../support/ontology.ts';
import { startWorkflowTestEnv, until, type WorkflowTestEnv } from '../support/workflow-env.ts';

// Issue 31's acceptance, end to end on the embedded servers (PostgreSQL, Temporal with time
// skipping, a real SMTP server): a company connects its own PostgreSQL (a second database), a sync
// of its 100,000 orders into sales.Order runs from its Temporal Schedule, an automation on added
// orders over a threshold sends one notification per large order through the outbox and the notify
// rules (within the app's notificationsPerDay, the rest recorded blocked), each build's run and
// its steps are in Temporal's history, and a worker killed in the middle of the next scheduled
// sync loses and duplicates nothing.

const ORDERS = 100_000;
const NEW_ORDERS = 20_000;
const PAGE = 5000;
const LARGE = 10_000;
/** The app's daily notifications: more than the first sync's large orders, fewer than both syncs'. */
const NOTIFICATIONS_PER_DAY = 25;
const connectivity = testConnectivity();
const silent = pino({ level: 'silent' });
const developer = FLOW_DEVELOPER;

let workflows: WorkflowTestEnv;
let db: Db;
let source: SourceDatabase;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let appId: string;

beforeAll(async () => {
  smtp = await startSmtpSink();
  workflows = await startWorkflowTestEnv(undefined, { connectivity, mailer: smtpMailer({ url: smtp.url, from: 'flows@svc.example' }) });
  db = workflows.database.db;
  source = await createSourceDatabase();
  await seedFlowCompany(db);
  await defineObjectTypes({ db, clock: systemClock }, developer, FLOW_COMPANY.cellId, SALES);
  appId = await publishWorkflow(db, 'order-desk', '1.0.0', { limits: { notificationsPerDay: NOTIFICATIONS_PER_DAY } });
  await source.client.query(
    'CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric NOT NULL, note text, placed_at timestamptz NOT NULL)',
  );
}, 120_000);
afterAll(async () => {
  await workflows?.stop();
  await source?.drop();
  await smtp?.stop();
});

const relay = () => relayDue({ db, client: workflows.env.client, logger: silent });

/**
 * Orders `from`..`to` of the company's table: the large ones (amount 50,000) are those whose id
 * leaves `largeEvery` the remainder `largeAt`; the others stay under 1,000.
 */
const insertOrders = (from: number, to: number, largeEvery: number, largeAt: number) =>
  source.client.query(
    `INSERT INTO orders (id, amount, note, placed_at)
     SELECT i, CASE WHEN i % $3 = $4 THEN 50000 ELSE i % 1000 + 0.25 END, 'order ' || i,
            timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => i)
     FROM generate_series($1::int, $2::int) AS i`,
    [from, to, largeEvery, largeAt],
  );

/** The order numbers of the source over the threshold. */
const largeInSource = async () =>
  (await source.client.query<{ id: string }>('SELECT id FROM orders WHERE amount > $1 ORDER BY id', [LARGE])).rows.map((r) => Number(r.id));

/** What sales.Order holds, and the creations its edits history recorded. */
async function orderObjects() {
  const ontology = (await findOntologyOfCompany(db, FLOW_COMPANY.id))!;
  const type = (await findObjectTypeRecord(db, ontology.id, 'sales.Order'))!;
  const objects = await sql<{ n: number; keys: number; total: string }>`
    SELECT count(*)::int AS n, count(DISTINCT number)::int AS keys, sum(amount)::text AS total FROM ${objectTable(ontology, type)}`.execute(
    db,
  );
  const creates = await sql<{ n: number; keys: number }>`
    SELECT count(*)::int AS n, count(DISTINCT primary_key)::int AS keys FROM ontology_edits
    WHERE object_type_id = ${type.id} AND edit->>'type' = 'create'`.execute(db);
  return { ...objects.rows[0]!, creates: creates.rows[0]! };
}

const sourceTotals = async () =>
  (await source.client.query<{ n: number; total: string }>('SELECT count(*)::int AS n, sum(amount)::float8::text AS total FROM orders'))
    .rows[0]!;

/**
 * Fires the sync's Temporal Schedule (as its cron would) and waits for the build that run records
 * to end; `whileRunning` acts on it in flight. The build is polled, not awaited through Temporal:
 * awaiting a result lets the test server skip time, to the Schedule's next 03:00 and over the day
 * the notification cap counts in.
 */
async function scheduledBuild(syncId: string, whileRunning?: (buildId: string) => Promise<void>) {
  const before = new Set((await listBuilds(db, developer, FLOW_COMPANY.cellId, 50)).data.map((b) => b.id));
  await workflows.env.client.schedule.getHandle(dataSyncScheduleId(syncId)).trigger();
  const found = await vi.waitFor(
    async () => {
      const build = (await listBuilds(db, developer, FLOW_COMPANY.cellId, 50)).data.find((b) => !before.has(b.id));
      expect(build).toBeDefined();
      return build!;
    },
    { timeout: 30_000, interval: 50 },
  );
  expect(found.trigger).toBe('schedule');
  await whileRunning?.(found.id);
  return vi.waitFor(
    async () => {
      const build = await getBuild(db, developer, FLOW_COMPANY.cellId, found.id);
      expect(['SUCCEEDED', 'FAILED', 'CANCELLED']).toContain(build.status);
      return build;
    },
    { timeout: 150_000, interval: 100 },
  );
}

/**
 * The build's run as Temporal holds it once closed (what the Web UI shows): its status and the
 * activities it ran, with the attempt that completed each.
 */
async function inTemporal(workflowId: string) {
  const handle = workflows.env.client.workflow.getHandle(workflowId);
  const described = await vi.waitFor(
    async () => {
      const d = await handle.describe();
      expect(d.status.name).not.toBe('RUNNING');
      return d;
    },
    { timeout: 30_000, interval: 50 },
  );
  const history = await handle.fetchHistory();
  const scheduled = new Map<string, string>();
  const steps: { activity: string; attempt: number }[] = [];
  for (const event of history.events ?? []) {
    const id = String(event.eventId);
    const s = event.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(id, s.activityType?.name ?? '');
    const started = event.activityTaskStartedEventAttributes;
    if (started) steps.push({ activity: scheduled.get(String(started.scheduledEventId)) ?? '', attempt: started.attempt ?? 0 });
  }
  return { status: described.status.name, memo: described.memo, steps };
}

/** The app's notifications of the automation, each with the order number its subject names. */
const readNotifications = async () =>
  (
    await db
      .selectFrom('workflow_notifications')
      .select(['subject', 'status', 'recipient'])
      .where('app_id', '=', appId)
      .where('step_id', '=', 'effect-0')
      .execute()
  ).map((n) => ({ ...n, number: Number(n.subject.replace('Large order ', '')) }));

/** Waits for `count` notifications, each past its delivery (none left `sending`). */
const notifications = (count: number) => until(readNotifications, (n) => n.length >= count && n.every((m) => m.status !== 'sending'));

describe('issue 31 acceptance: a company’s PostgreSQL → a scheduled sync → an automation → notifications', () => {
  let syncId: string;
  let automationId: string;

  it('syncs 100,000 orders from the Schedule and sends one notification per large order', async () => {
    await insertOrders(1, ORDERS, 5000, 1234);
    const large = await largeInSource();
    expect(large).toHaveLength(20);

    const connection = await createConnection(db, connectivity, developer, FLOW_COMPANY.cellId, {
      kind: 'postgresql',
      name: 'shop',
      connectionString: source.url,
    });
    const sync = await createSync(
      db,
      developer,
      FLOW_COMPANY.cellId,
      CreateSyncInput.parse({
        name: 'orders',
        connectionId: connection.id,
        objectType: 'sales.Order',
        source: { table: 'orders' },
        mapping: { number: 'id', amount: 'amount', note: 'note', at: 'placed_at' },
        mode: 'incremental',
        cursorColumn: 'id',
        pageSize: PAGE,
        schedule: '0 3 * * *',
      }),
    );
    syncId = sync.id;
    automationId = (
      await createAutomation(
        { db, clock: systemClock },
        developer,
        FLOW_COMPANY.cellId,
        CreateAutomationInput.parse({
          app: 'order-desk',
          name: 'large-orders',
          condition: {
            type: 'objectsChanged',
            objectType: 'sales.Order',
            changes: ['added'],
            where: { type: 'gt', field: 'amount', value: LARGE },
          },
          effects: [{ type: 'notify', to: [RECIPIENTS[0]], subject: 'Large order {{number}}', body: 'Order {{number}}: {{amount}}.' }],
        }),
      )
    ).id;
    // The sync's Schedule and the automation's workflow come from their outbox intents.
    await relay();

    const build = await scheduledBuild(syncId);
    expect(build).toMatchObject({ status: 'SUCCEEDED', trigger: 'schedule' });
    expect(build.jobs).toEqual([
      expect.objectContaining({ syncName: 'orders', status: 'SUCCEEDED', rowsRead: ORDERS, rowsWritten: ORDERS, pages: ORDERS / PAGE + 1 }),
    ]);
    const temporal = await inTemporal(build.workflowId);
    expect(temporal.status).toBe('COMPLETED');
    expect(temporal.memo).toMatchObject({ kind: 'data-build', company: FLOW_COMPANY.cellId });
    expect(temporal.steps.map((s) => s.activity)).toEqual(['recordScheduledDataBuild', 'startDataBuild', 'runDataSyncJob', 'endDataBuild']);

    const objects = await orderObjects();
    const totals = await sourceTotals();
    expect(objects).toMatchObject({ n: ORDERS, keys: ORDERS, creates: { n: ORDERS, keys: ORDERS } });
    expect(Number(objects.total)).toBe(Number(totals.total));

    // Each committed page's changes reach the automation through the outbox relay.
    await relay();
    const sent = await notifications(large.length);
    expect(sent.map((n) => n.number).sort((a, b) => a - b)).toEqual(large);
    expect(sent.every((n) => n.status === 'sent' && n.recipient === RECIPIENTS[0])).toBe(true);
    const mails = await until(
      async () => smtp.received.filter((m) => m.subject.startsWith('Large order ')),
      (m) => m.length >= large.length,
    );
    expect(mails.map((m) => Number(m.subject.replace('Large order ', ''))).sort((a, b) => a - b)).toEqual(large);
    // A run is closed after its effect's mail went out: wait for every run to end.
    const runs = await until(
      () => db.selectFrom('automation_runs').select(['status']).where('automation_id', '=', automationId).execute(),
      (r) => r.length >= large.length && r.every((run) => run.status !== 'RUNNING'),
    );
    expect(runs).toHaveLength(large.length);
    expect(runs.every((r) => r.status === 'SUCCEEDED')).toBe(true);
  }, 180_000);

  it('a worker killed in the middle of the next scheduled sync: every new order once, nothing lost, one notification each within the daily cap', async () => {
    await insertOrders(ORDERS + 1, ORDERS + NEW_ORDERS, 2000, 777);
    const large = await largeInSource();
    expect(large).toHaveLength(30);
    const build = await scheduledBuild(syncId, async (buildId) => {
      const pages = async () =>
        (await db.selectFrom('data_build_jobs').select('pages').where('build_id', '=', buildId).executeTakeFirstOrThrow()).pages;
      await vi.waitFor(async () => expect(await pages()).toBeGreaterThanOrEqual(1), { timeout: 60_000, interval: 20 });
      // The next page's read waits on the source while the worker goes away.
      const lock = await lockSourceTable(source, 'orders');
      expect(await pages()).toBeLessThan(NEW_ORDERS / PAGE);
      await workflows.replaceWorker();
      await lock.release();
    });
    expect(build.status).toBe('SUCCEEDED');
    // Only the new rows (the cursor), each read and written once, though the job ran twice.
    expect(build.jobs).toEqual([
      expect.objectContaining({ status: 'SUCCEEDED', rowsRead: NEW_ORDERS, rowsWritten: NEW_ORDERS, pages: NEW_ORDERS / PAGE + 1 }),
    ]);
    const temporal = await inTemporal(build.workflowId);
    expect(temporal.status).toBe('COMPLETED');
    const job = temporal.steps.find((s) => s.activity === 'runDataSyncJob')!;
    expect(job.attempt).toBeGreaterThanOrEqual(2);

    const objects = await orderObjects();
    const totals = await sourceTotals();
    expect(objects).toMatchObject({
      n: ORDERS + NEW_ORDERS,
      keys: ORDERS + NEW_ORDERS,
      creates: { n: ORDERS + NEW_ORDERS, keys: ORDERS + NEW_ORDERS },
    });
    expect(Number(objects.total)).toBe(Number(totals.total));

    // Every large order has its one notification: the first 25 of the day sent, the rest blocked by the app's cap.
    await relay();
    const all = await notifications(large.length);
    expect(all.map((n) => n.number).sort((a, b) => a - b)).toEqual(large);
    const blocked = all.filter((n) => n.status === 'blocked');
    expect(all.filter((n) => n.status === 'sent')).toHaveLength(NOTIFICATIONS_PER_DAY);
    expect(blocked).toHaveLength(large.length - NOTIFICATIONS_PER_DAY);
    expect(blocked.every((n) => n.number > ORDERS)).toBe(true);
    const mails = await until(
      async () => smtp.received.filter((m) => m.subject.startsWith('Large order ')),
      (m) => m.length >= NOTIFICATIONS_PER_DAY,
    );
    expect(mails).toHaveLength(NOTIFICATIONS_PER_DAY);
    expect(new Set(mails.map((m) => m.subject)).size).toBe(NOTIFICATIONS_PER_DAY);
  }, 180_000);
});
