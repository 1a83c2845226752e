import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAutomation } from '../../domain/automate/create-automation.ts';
import { setAutomationEnabled } from '../../domain/automate/set-automation-enabled.ts';
import { MAX_CHANGES_PER_TICK } from '../../domain/automate/trigger-automation.ts';
import type { Db } from '../../domain/db/database.ts';
import { systemClock } from '../../domain/deps.ts';
import { defineActionTypes } from '../../domain/ontology/define-action-types.ts';
import { defineObjectTypes } from '../../domain/ontology/define-object-types.ts';
import { editObjects } from '../../domain/ontology/edit-objects.ts';
import { upsertObjects } from '../../domain/ontology/index.ts';
import { enqueue } from '../../domain/outbox/repository.ts';
import { recordUsage } from '../../domain/usage/record-usage.ts';
import { readCounters } from '../../domain/usage/repository.ts';
import { smtpMailer } from '../../infra/mail/smtp-mailer.ts';
import { CreateAutomationInput } from '../../schemas/automate.ts';
import { reconcileAllAutomations } from '../../worker/automations.ts';
import { relayDue } from '../../worker/outbox-relay.ts';
import { automationScheduleId, automationWorkflowId } from '../../workflows/contract.ts';
import { FLOW_COMPANY, FLOW_DEVELOPER, publishWorkflow, RECIPIENTS, seedFlowCompany, startSmtpSink } from '../support/app-workflows.ts';
import { define, insertCompanyWithDeveloper, SALES } from '../support/ontology.ts';
import { ACTIONS } from '../support/ontology-actions.ts';
import { startWorkflowTestEnv, until, type WorkflowTestEnv } from '../support/workflow-env.ts';

// Automations on the embedded server with time skipping: a change made through the one writer
// reaches the automation's workflow only through the outbox relay, fires its action once (however
// often the change is delivered), never for an object its where clause leaves out; the cooldown
// and the daily cap are counted in workflow time; effects are metered as the app's compute and a
// used-up quota starts nothing; an effect that fails on the database is retried and applied once.

let env: TestWorkflowEnvironment;
let db: Db;
let workflows: WorkflowTestEnv;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let appId: string;
const silent = pino({ level: 'silent' });
const deps = () => ({ db, clock: systemClock });
const ann = FLOW_DEVELOPER;

beforeAll(async () => {
  smtp = await startSmtpSink();
  // Temporal suggests continuing as new after 400 events (4,096 by default), so that a page of a
  // few dozen triggers already crosses it.
  workflows = await startWorkflowTestEnv(
    undefined,
    { mailer: smtpMailer({ url: smtp.url, from: 'flows@svc.example' }) },
    { extraArgs: ['--dynamic-config-value', `limit.historyCount.suggestContinueAsNew=${SUGGEST_CONTINUE_AS_NEW}`] },
  );
  ({ env } = workflows);
  db = workflows.database.db;
  await seedFlowCompany(db);
  await defineObjectTypes(deps(), ann, FLOW_COMPANY.cellId, SALES);
  await defineActionTypes(deps(), ann, FLOW_COMPANY.cellId, ACTIONS);
  appId = await publishWorkflow(db, 'order-desk', '1.0.0', { limits: { computeMinutesPerMonth: 1 } });
}, 120_000);
afterAll(async () => {
  await workflows?.stop();
  await smtp?.stop();
});

const SUGGEST_CONTINUE_AS_NEW = 400;

const relay = () => relayDue({ db, client: env.client, logger: silent });

const runsOf = (automationId: string) =>
  db.selectFrom('automation_runs').selectAll().where('automation_id', '=', automationId).orderBy('started_at').orderBy('id').execute();
/** Waits until `n` runs have ended (a SKIPPED one ends at once). */
const ended = (automationId: string, n: number) =>
  until(
    () => runsOf(automationId),
    (runs) => runs.filter((r) => r.status !== 'RUNNING').length >= n,
  );

async function automate(definition: Record<string, unknown>) {
  const created = await createAutomation(
    deps(),
    ann,
    FLOW_COMPANY.cellId,
    CreateAutomationInput.parse({ app: 'order-desk', ...definition }),
  );
  await relay();
  return created.id;
}

async function placeOrders(...orders: { number: number; amount: number; note?: string; paid?: boolean }[]) {
  // In one transaction, as a request's: the edits history and the changes share it.
  await db.transaction().execute((trx) =>
    editObjects({ db: trx, clock: systemClock }, ann, FLOW_COMPANY.cellId, {
      edits: orders.map((properties) => ({ type: 'create' as const, objectType: 'sales.Order', properties })),
    }),
  );
  await relay();
}

const noteOf = async (number: number) =>
  (
    await db
      .selectFrom('ontology_edits')
      .select('edit')
      .where('primary_key', '=', String(number))
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow()
  ).edit as { after: { note?: string } | null };

describe('automations', () => {
  it('a change through the object writer fires the action exactly once; an object the where clause leaves out fires nothing', async () => {
    const id = await automate({
      name: 'flag-large-orders',
      condition: {
        type: 'objectsChanged',
        objectType: 'sales.Order',
        changes: ['added'],
        where: { type: 'gte', field: 'amount', value: 1000 },
      },
      effects: [
        {
          type: 'action',
          action: 'sales.setNote',
          parameters: { order: { from: 'primaryKey' }, note: { from: 'value', value: 'large' } },
        },
      ],
    });
    const described = await env.client.workflow.getHandle(automationWorkflowId(id)).describe();
    expect(described.memo).toMatchObject({ kind: 'automation', company: FLOW_COMPANY.cellId, app: 'order-desk', runId: id });

    await placeOrders({ number: 101, amount: 5000 }, { number: 102, amount: 10 });
    const [run] = await ended(id, 1);
    expect(run).toMatchObject({ status: 'SUCCEEDED', error: null, workflow_id: automationWorkflowId(id), skip_reason: null });
    expect(run!.temporal_run_id).toBe(described.runId);
    expect(run!.trigger).toMatchObject({ kind: 'change', objectType: 'sales.Order', primaryKey: '101', change: 'added' });
    expect(run!.effects).toEqual([expect.objectContaining({ index: 0, type: 'action', status: 'SUCCEEDED', attempts: 1 })]);
    expect((await noteOf(101)).after?.note).toBe('large');
    expect((await noteOf(102)).after?.note).toBeUndefined();

    // The action's own edit (a modification) and the same change delivered again (another intent
    // over the same range, as after a relay crash) fire nothing more.
    const seq = (run!.trigger as { seq: number }).seq;
    await enqueue(db, {
      topic: 'ontology.changed',
      key: 'redelivered',
      payload: { companyId: FLOW_COMPANY.id, objectTypes: ['sales.Order'], fromSeq: seq, toSeq: seq },
    });
    await relay();
    await placeOrders({ number: 103, amount: 20 });
    // A later matching order is the marker that every earlier tick has been handled (ticks run in order).
    await placeOrders({ number: 104, amount: 2000 });
    // Another company's large order (its own sales.Order) reaches no automation of Flow.
    const other = await insertCompanyWithDeveloper(db, 'cell-other');
    await define(db, other, SALES);
    await db.transaction().execute((trx) =>
      editObjects({ db: trx, clock: systemClock }, other.developer, other.cellId, {
        edits: [{ type: 'create', objectType: 'sales.Order', properties: { number: 901, amount: 9000 } }],
      }),
    );
    await relay();
    await placeOrders({ number: 105, amount: 3000 });
    const runs = await ended(id, 3);
    expect(runs.map((r) => (r.trigger as { primaryKey: string }).primaryKey)).toEqual(['101', '104', '105']);
    expect(Object.groupBy(runs, (r) => `${r.status} ${r.skip_reason}`)).toEqual({ 'SUCCEEDED null': expect.any(Array) });
    await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
    await relay();
  });

  it('reads a commit of more changes than one page (a sync’s page) to its end: a match past the first thousand fires', async () => {
    const id = await automate({
      name: 'bulk',
      condition: {
        type: 'objectsChanged',
        objectType: 'sales.Order',
        changes: ['added'],
        where: { type: 'eq', field: 'note', value: 'bulk' },
      },
      effects: [
        { type: 'action', action: 'sales.setNote', parameters: { order: { from: 'primaryKey' }, note: { from: 'value', value: 'seen' } } },
      ],
    });
    // As a sync commits a page: one transaction, one ontology.changed intent over all its changes.
    const objects = Array.from({ length: MAX_CHANGES_PER_TICK + 500 }, (_, i) => ({
      number: 10_001 + i,
      amount: 1,
      note: i === 1400 ? 'bulk' : 'x',
    }));
    await db
      .transaction()
      .execute((trx) => upsertObjects(trx, { companyId: FLOW_COMPANY.id, objectType: 'sales.Order', operationId: 'ope_bulk', objects }));
    await relay();
    await placeOrders({ number: 12_600, amount: 1, note: 'bulk' });
    const runs = await ended(id, 2);
    expect(runs.map((r) => [(r.trigger as { primaryKey: string }).primaryKey, r.status])).toEqual([
      ['11401', 'SUCCEEDED'],
      ['12600', 'SUCCEEDED'],
    ]);
    expect((await noteOf(11_401)).after?.note).toBe('seen');
    await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
    await relay();
  });

  it('continues as new in the middle of a page when Temporal suggests it: each history stays near its bound, each trigger runs once', async () => {
    const id = await automate({
      name: 'long-page',
      condition: {
        type: 'objectsChanged',
        objectType: 'sales.Order',
        changes: ['added'],
        where: { type: 'eq', field: 'note', value: 'page' },
      },
      effects: [
        { type: 'action', action: 'sales.setNote', parameters: { order: { from: 'primaryKey' }, note: { from: 'value', value: 'paged' } } },
      ],
      dailyCap: 10_000,
    });
    // One commit whose triggers take more events than the suggestion (about 18 a trigger).
    const objects = Array.from({ length: 60 }, (_, i) => ({ number: 20_001 + i, amount: 1, note: 'page' }));
    await db
      .transaction()
      .execute((trx) => upsertObjects(trx, { companyId: FLOW_COMPANY.id, objectType: 'sales.Order', operationId: 'ope_page', objects }));
    await relay();
    const runs = await ended(id, 60);
    expect(runs).toHaveLength(60);
    expect(new Set(runs.map((r) => (r.trigger as { primaryKey: string }).primaryKey)).size).toBe(60);
    expect(Object.groupBy(runs, (r) => `${r.status} ${r.skip_reason}`)).toEqual({ 'SUCCEEDED null': expect.any(Array) });
    const temporalRuns = [...new Set(runs.map((r) => r.temporal_run_id))];
    expect(temporalRuns.length).toBeGreaterThan(2);
    for (const runId of temporalRuns) {
      const history = await env.client.workflow.getHandle(automationWorkflowId(id), runId!).fetchHistory();
      // The suggestion is read before each trigger: a run ends within one trigger's events of it.
      expect(history.events!.length).toBeLessThan(SUGGEST_CONTINUE_AS_NEW + 40);
    }
    expect((await noteOf(20_060)).after?.note).toBe('paged');
    await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
    await relay();
  });

  it('honours the daily cap and the cooldown, counted in workflow time', async () => {
    const capped = await automate({
      name: 'capped',
      condition: { type: 'objectsChanged', objectType: 'sales.Order', where: { type: 'startsWith', field: 'note', value: 'cap' } },
      effects: [{ type: 'notify', to: [RECIPIENTS[1]], subject: 'Order {{number}}', body: 'Note: {{note}}' }],
      dailyCap: 2,
    });
    const cooled = await automate({
      name: 'cooled',
      condition: { type: 'objectsChanged', objectType: 'sales.Order', where: { type: 'startsWith', field: 'note', value: 'cool' } },
      effects: [
        { type: 'action', action: 'sales.setNote', parameters: { order: { from: 'primaryKey' }, note: { from: 'value', value: 'done' } } },
      ],
      cooldownSeconds: 3600,
    });
    for (const number of [201, 202, 203]) await placeOrders({ number, amount: 1, note: `cap-${number}` });
    const cappedRuns = await ended(capped, 3);
    expect(cappedRuns.map((r) => [r.status, r.skip_reason])).toEqual([
      ['SUCCEEDED', null],
      ['SUCCEEDED', null],
      ['SKIPPED', 'daily_cap'],
    ]);
    const mails = await until(
      async () => smtp.received.filter((m) => m.subject.startsWith('Order 20')),
      (m) => m.length >= 2,
    );
    expect(mails.map((m) => [m.to, m.subject, m.text])).toEqual([
      [[RECIPIENTS[1]], 'Order 201', 'Note: cap-201'],
      [[RECIPIENTS[1]], 'Order 202', 'Note: cap-202'],
    ]);

    await placeOrders({ number: 301, amount: 1, note: 'cool-1' });
    await placeOrders({ number: 302, amount: 1, note: 'cool-2' });
    expect((await ended(cooled, 2)).map((r) => [r.status, r.skip_reason])).toEqual([
      ['SUCCEEDED', null],
      ['SKIPPED', 'cooldown'],
    ]);
    await env.sleep(3600_000 + 1000);
    await placeOrders({ number: 303, amount: 1, note: 'cool-3' });
    const cooledRuns = await ended(cooled, 3);
    expect(cooledRuns.map((r) => [(r.trigger as { primaryKey: string }).primaryKey, r.status])).toEqual([
      ['301', 'SUCCEEDED'],
      ['302', 'SKIPPED'],
      ['303', 'SUCCEEDED'],
    ]);
    for (const id of [capped, cooled]) await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
    await relay();
  });

  it('starts no effect while the owning app’s compute minutes are used up: the run says quota_exhausted', async () => {
    const id = await automate({
      name: 'quota',
      condition: { type: 'objectsChanged', objectType: 'sales.Order', where: { type: 'eq', field: 'note', value: 'quota' } },
      effects: [
        { type: 'action', action: 'sales.setNote', parameters: { order: { from: 'primaryKey' }, note: { from: 'value', value: 'ran' } } },
      ],
    });
    await recordUsage(db, [{ appId, meter: 'compute.workflow', amount: 60_000, at: new Date(await env.currentTimeMs()) }]);
    await placeOrders({ number: 401, amount: 1, note: 'quota' });
    const [run] = await ended(id, 1);
    expect(run).toMatchObject({ status: 'SKIPPED', skip_reason: 'quota_exhausted', effects: [] });
    expect((await noteOf(401)).after?.note).toBe('quota');
    // A new month, as far as the app's quota goes, for the tests after this one.
    await db.deleteFrom('usage_counters').where('app_id', '=', appId).execute();
  });
  it('meters each effect as the owning app’s compute: the effect that uses up its minutes is the last one started', async () => {
    const id = await automate({
      name: 'metered',
      condition: { type: 'objectsChanged', objectType: 'sales.Order', where: { type: 'eq', field: 'note', value: 'metered' } },
      effects: [
        { type: 'action', action: 'sales.setNote', parameters: { order: { from: 'primaryKey' }, note: { from: 'value', value: 'ran' } } },
      ],
    });
    // One millisecond short of the app's minute: the next effect's own time uses it up.
    const at = new Date(await env.currentTimeMs());
    await recordUsage(db, [{ appId, meter: 'compute.workflow', amount: 59_999, at }]);
    await placeOrders({ number: 451, amount: 1, note: 'metered' });
    const [first] = await ended(id, 1);
    expect(first).toMatchObject({ status: 'SUCCEEDED', effects: [expect.objectContaining({ status: 'SUCCEEDED' })] });
    expect((await readCounters(db, appId, ['compute.workflow'], at))['compute.workflow']).toBeGreaterThanOrEqual(60_000);
    await placeOrders({ number: 452, amount: 1, note: 'metered' });
    const runs = await ended(id, 2);
    expect(runs.map((r) => [(r.trigger as { primaryKey: string }).primaryKey, r.status, r.skip_reason])).toEqual([
      ['451', 'SUCCEEDED', null],
      ['452', 'SKIPPED', 'quota_exhausted'],
    ]);
    expect((await noteOf(451)).after?.note).toBe('ran');
    expect((await noteOf(452)).after?.note).toBe('metered');
    await db.deleteFrom('usage_counters').where('app_id', '=', appId).execute();
    await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
    await relay();
  });

  it('retries an effect that failed on the database: the retry completes it, applied once', async () => {
    // The database refuses the action's edit once (a sequence counts across the rolled-back attempt).
    await sql`CREATE SEQUENCE fail_once`.execute(db);
    await sql`CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF nextval('fail_once') = 1 THEN RAISE EXCEPTION 'connection lost'; END IF; RETURN NEW; END $$`.execute(db);
    await sql`CREATE TRIGGER fail_once BEFORE INSERT ON ontology_edits FOR EACH ROW
      WHEN (NEW.edit->'after'->>'note' = 'retried') EXECUTE FUNCTION fail_once()`.execute(db);
    try {
      const id = await automate({
        name: 'retried',
        condition: { type: 'objectsChanged', objectType: 'sales.Order', where: { type: 'eq', field: 'note', value: 'retry' } },
        effects: [
          {
            type: 'action',
            action: 'sales.setNote',
            parameters: { order: { from: 'primaryKey' }, note: { from: 'value', value: 'retried' } },
          },
        ],
        retries: 2,
      });
      await placeOrders({ number: 801, amount: 1, note: 'retry' });
      const [run] = await ended(id, 1);
      expect(run).toMatchObject({ status: 'SUCCEEDED', error: null });
      expect(run!.effects).toEqual([expect.objectContaining({ index: 0, type: 'action', status: 'SUCCEEDED', attempts: 2 })]);
      const { rows } = await sql<{ n: string }>`SELECT last_value::text AS n FROM fail_once`.execute(db);
      expect(rows[0]!.n).toBe('2');
      const edits = await db
        .selectFrom('ontology_edits')
        .select(sql<string>`edit->>'type'`.as('type'))
        .where('primary_key', '=', '801')
        .orderBy('seq')
        .execute();
      expect(edits.map((e) => e.type)).toEqual(['create', 'modify']);
      expect((await noteOf(801)).after?.note).toBe('retried');
      await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
      await relay();
    } finally {
      await sql`DROP TRIGGER fail_once ON ontology_edits`.execute(db);
      await sql`DROP FUNCTION fail_once()`.execute(db);
      await sql`DROP SEQUENCE fail_once`.execute(db);
    }
  });

  it('a notification the mail server refuses for now on every attempt ends failed on the effect’s last attempt, not left sending', async () => {
    const id = await automate({
      name: 'refused',
      condition: { type: 'objectsChanged', objectType: 'sales.Order', where: { type: 'eq', field: 'note', value: 'refused' } },
      effects: [{ type: 'notify', to: [RECIPIENTS[0]], subject: 'Refused {{number}}', body: 'Never sent.' }],
      retries: 1,
    });
    const refusedBefore = smtp.refused;
    smtp.refuseNext(2);
    await placeOrders({ number: 811, amount: 1, note: 'refused' });
    const [run] = await ended(id, 1);
    expect(smtp.refused - refusedBefore).toBe(2);
    expect(run!.effects).toEqual([expect.objectContaining({ index: 0, type: 'notify', status: 'SUCCEEDED' })]);
    const messages = await db
      .selectFrom('workflow_notifications')
      .select(['status', 'error'])
      .where('subject', '=', 'Refused 811')
      .execute();
    expect(messages).toEqual([{ status: 'failed', error: expect.stringContaining('try again later') }]);
    expect(smtp.received.filter((m) => m.subject === 'Refused 811')).toEqual([]);
    await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
    await relay();
  });

  it('fires a threshold when its aggregate crosses the value, and again only after it stopped holding', async () => {
    const id = await automate({
      name: 'threshold',
      condition: {
        type: 'threshold',
        objectType: 'sales.Order',
        where: { type: 'eq', field: 'note', value: 'thr' },
        aggregation: { type: 'sum', field: 'amount' },
        operator: 'gt',
        value: 100,
      },
      effects: [{ type: 'notify', to: [RECIPIENTS[0]], subject: 'Threshold crossed', body: 'Orders marked thr are over 100.' }],
    });
    // The aggregate is read when the workflow handles a change: each step waits for the one before.
    const met = (value: boolean) =>
      until(
        async () =>
          (await db.selectFrom('automations').select('threshold_met').where('id', '=', id).executeTakeFirstOrThrow()).threshold_met,
        (m) => m === value,
      );
    await placeOrders({ number: 501, amount: 60, note: 'thr' });
    expect(await met(false)).toBe(false);
    await placeOrders({ number: 502, amount: 50, note: 'thr' });
    expect(await ended(id, 1)).toHaveLength(1);
    await placeOrders({ number: 503, amount: 10, note: 'thr' });
    // 502 leaves the set (sum 70: no longer holding), 504 brings it over again (110).
    await db.transaction().execute((trx) =>
      editObjects({ db: trx, clock: systemClock }, ann, FLOW_COMPANY.cellId, {
        edits: [{ type: 'modify', objectType: 'sales.Order', primaryKey: 502, properties: { note: 'out' } }],
      }),
    );
    await relay();
    expect(await met(false)).toBe(false);
    await placeOrders({ number: 504, amount: 40, note: 'thr' });
    const runs = await ended(id, 2);
    expect(
      runs.map((r) => [r.status, (r.trigger as { kind: string; value: number }).kind, (r.trigger as { value: number }).value]),
    ).toEqual([
      ['SUCCEEDED', 'threshold', 110],
      ['SUCCEEDED', 'threshold', 110],
    ]);
    await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
    await relay();
  });

  it('fires a schedule condition from its Temporal Schedule, once per firing', async () => {
    const id = await automate({
      name: 'daily-digest',
      condition: { type: 'schedule', cron: '0 9 * * *' },
      effects: [{ type: 'notify', to: [RECIPIENTS[0]], subject: 'Daily digest', body: 'Good morning.' }],
    });
    const schedule = await env.client.schedule.getHandle(automationScheduleId(id)).describe();
    expect(schedule.memo).toMatchObject({ kind: 'automation-schedule', company: FLOW_COMPANY.cellId, app: 'order-desk' });
    const first = schedule.info.nextActionTimes[0]!;
    expect([first.getUTCHours(), first.getUTCMinutes()]).toEqual([9, 0]);
    await env.sleep(first.getTime() - (await env.currentTimeMs()) + 86_400_000 + 60_000);
    const runs = await ended(id, 2);
    expect(runs.map((r) => [r.status, (r.trigger as { kind: string }).kind])).toEqual([
      ['SUCCEEDED', 'schedule'],
      ['SUCCEEDED', 'schedule'],
    ]);
    // Lost in Temporal (terminated and deleted in the Web UI, a new cluster): the periodic
    // reconcile makes both again.
    await env.client.workflow.getHandle(automationWorkflowId(id)).terminate('lost');
    await env.client.schedule.getHandle(automationScheduleId(id)).delete();
    const swept = await reconcileAllAutomations(env.client, db);
    expect(swept.failed).toEqual({});
    expect((await env.client.workflow.getHandle(automationWorkflowId(id)).describe()).status.name).toBe('RUNNING');
    const again = (await env.client.schedule.getHandle(automationScheduleId(id)).describe()).info.nextActionTimes[0]!;
    expect([again.getUTCHours(), again.getUTCMinutes()]).toEqual([9, 0]);
    // Disabled: the schedule is removed with the workflow.
    await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
    await relay();
    await expect(env.client.schedule.getHandle(automationScheduleId(id)).describe()).rejects.toThrow();
  });
  it('starts the owning app’s production workflow as an effect, a child run of its own', async () => {
    await publishWorkflow(db, 'order-desk', '1.1.0', {
      workflow: { steps: [{ id: 'people', kind: 'use', capability: 'platform.accounts' }] },
    });
    const id = await automate({
      name: 'start-the-flow',
      condition: {
        type: 'objectsChanged',
        objectType: 'sales.Order',
        changes: ['added'],
        where: { type: 'eq', field: 'note', value: 'flow' },
      },
      effects: [{ type: 'appWorkflow' }],
    });
    await placeOrders({ number: 601, amount: 1, note: 'flow' });
    const [run] = await ended(id, 1);
    expect(run).toMatchObject({ status: 'SUCCEEDED', effects: [expect.objectContaining({ type: 'appWorkflow', status: 'SUCCEEDED' })] });
    const flows = await until(
      () => db.selectFrom('workflow_runs').select(['trigger', 'status', 'workflow_id']).where('app_id', '=', appId).execute(),
      (rows) => rows.some((r) => r.status !== 'running'),
    );
    expect(flows).toEqual([{ trigger: 'change', status: 'succeeded', workflow_id: `app-run:${appId}:automation:${run!.id}:0` }]);
    await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
    await relay();
  });
  it('records an effect its action refuses as FAILED, without retrying it, and the run with its error', async () => {
    const id = await automate({
      name: 'pay-on-arrival',
      condition: { type: 'objectsChanged', objectType: 'sales.Order', where: { type: 'eq', field: 'note', value: 'pay' } },
      effects: [
        { type: 'action', action: 'sales.payOrder', parameters: { order: { from: 'primaryKey' } } },
        { type: 'notify', to: [RECIPIENTS[0]], subject: 'Paid {{number}}', body: 'Done.' },
      ],
      retries: 5,
    });
    await placeOrders({ number: 701, amount: 1, note: 'pay', paid: true });
    const [run] = await ended(id, 1);
    expect(run).toMatchObject({ status: 'FAILED', error: 'sales.payOrder refused its parameters.' });
    expect(run!.effects).toEqual([
      expect.objectContaining({ index: 0, type: 'action', status: 'FAILED', attempts: 1 }),
      expect.objectContaining({ index: 1, type: 'notify', status: 'SUCCEEDED' }),
    ]);
    await setAutomationEnabled(deps(), ann, FLOW_COMPANY.cellId, id, false);
    await relay();
  });
});
