import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_EVALUATION_LIMITS } from '../../domain/app-workflows/evaluation-threads.ts';
import { EvaluationBudget, evaluateExpression } from '../../domain/app-workflows/expression.ts';
import type { ModelProvider } from '../../domain/app-workflows/model-provider.ts';
import { localModelProvider } from '../../domain/app-workflows/model-provider.ts';
import { nextScheduledRun, triggersOf } from '../../domain/apps/workflow-definition.ts';
import type { Db } from '../../domain/db/database.ts';
import { systemClock } from '../../domain/deps.ts';
import { defineObjectTypes } from '../../domain/ontology/define-object-types.ts';
import { editObjects } from '../../domain/ontology/edit-objects.ts';
import { enqueue } from '../../domain/outbox/repository.ts';
import { recordUsage } from '../../domain/usage/record-usage.ts';
import { smtpMailer } from '../../infra/mail/smtp-mailer.ts';
import { workflowSchema } from '../../schemas/manifest/workflow.ts';
import { reconcileAppTriggers } from '../../worker/app-triggers.ts';
import { relayDue } from '../../worker/outbox-relay.ts';
import { appScheduleId, TASK_QUEUE } from '../../workflows/contract.ts';
import {
  FLOW_COMPANY,
  FLOW_DEVELOPER,
  publishWorkflow,
  RECIPIENTS,
  type ReceivedMail,
  seedFlowCompany,
  startSmtpSink,
} from '../support/app-workflows.ts';
import { startWorkflowTestEnv, until, type WorkflowTestEnv } from '../support/workflow-env.ts';

// App workflows on the embedded server with time skipping: a week of a daily schedule in no
// time, a publish moving the schedule and a rollback moving it back, change triggers debounced
// by their cooldown, notify's cooldown and daily cap read off a real SMTP server on loopback,
// a worker killed mid-run, and compute minutes gating triggers.

const DAY = 86_400_000;
let env: TestWorkflowEnvironment;
let db: Db;
let workflows: WorkflowTestEnv;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  smtp = await startSmtpSink();
  workflows = await startWorkflowTestEnv(undefined, { mailer: smtpMailer({ url: smtp.url, from: 'flows@svc.example' }) });
  ({ env } = workflows);
  db = workflows.database.db;
  await seedFlowCompany(db);
}, 120_000);
afterAll(async () => {
  await workflows?.stop();
  await smtp?.stop();
});

const runsOf = (appId: string) => db.selectFrom('workflow_runs').selectAll().where('app_id', '=', appId).orderBy('started_at').execute();
const finished = (appId: string, n: number) =>
  until(
    () => runsOf(appId),
    (runs) => runs.filter((r) => r.status !== 'running').length >= n,
  );
const mailTo = (subject: string) => smtp.received.filter((m: ReceivedMail) => m.subject === subject);

const notifyStep = (subject: string, extra: Record<string, unknown> = {}) => ({
  id: 'tell',
  kind: 'notify',
  to: RECIPIENTS,
  subject,
  body: '=concat("orders: ", len(steps.rows))',
  dedupeKey: 'daily-digest',
  ...extra,
});
const rowsStep = {
  id: 'rows',
  kind: 'compute',
  op: 'per-row',
  from: '=steps.people',
  fields: { shout: '=upper(row.username)' },
};
const peopleStep = { id: 'people', kind: 'use', capability: 'platform.accounts' };

describe('schedules', () => {
  it('fire on time over a simulated week; a publish moves the schedule and a rollback moves it back', async () => {
    const daily = (at: string) => ({ trigger: { schedule: { every: '1d', at } }, steps: [peopleStep, rowsStep] });
    const appId = await publishWorkflow(db, 'digest', '1.0.0', { workflow: daily('09:00') });
    expect(await reconcileAppTriggers(env.client, db, appId)).toEqual({ schedule: 'created', changeTrigger: 'absent' });
    // The reconcile schedule runs this every few minutes: nothing is written while Temporal agrees.
    expect((await reconcileAppTriggers(env.client, db, appId)).schedule).toBe('unchanged');
    const handle = env.client.schedule.getHandle(appScheduleId(appId));
    const now = new Date(await env.currentTimeMs());
    const plan = triggersOf(workflowSchema.parse(daily('09:00')));
    const first = nextScheduledRun(plan.schedule, now)!;
    expect((await handle.describe()).info.nextActionTimes[0]).toEqual(first);

    await env.sleep(first.getTime() - now.getTime() + 7 * DAY - 60_000);
    const runs = await finished(appId, 7);
    expect(runs).toHaveLength(7);
    runs.forEach((run, day) => {
      expect(run).toMatchObject({ trigger: 'schedule', status: 'succeeded', channel: 'production' });
      expect(run.started_at.getTime() - first.getTime() - day * DAY).toBeGreaterThanOrEqual(0);
      expect(run.started_at.getTime() - first.getTime() - day * DAY).toBeLessThan(60_000);
      expect(run.workflow_id).toMatch(new RegExp(`^app-run:${appId}:schedule`));
    });
    const steps = runs[0]!.steps as { id: string; status: string; output: unknown }[];
    expect(steps.map((s) => [s.id, s.status])).toEqual([
      ['people', 'succeeded'],
      ['rows', 'succeeded'],
    ]);
    expect((steps[1]!.output as { shout: string }[]).map((r) => r.shout)).toEqual(['ANN', 'BOB']);

    // Publish 2.0.0 (15:30), then roll back to 1.0.0 (09:00).
    await publishWorkflow(db, 'digest', '2.0.0', { workflow: daily('15:30') });
    expect((await reconcileAppTriggers(env.client, db, appId)).schedule).toBe('updated');
    const later = new Date((await handle.describe()).info.nextActionTimes[0]!);
    expect([later.getUTCHours(), later.getUTCMinutes()]).toEqual([15, 30]);
    await publishWorkflow(db, 'digest', '1.0.0', { workflow: daily('09:00') });
    expect((await reconcileAppTriggers(env.client, db, appId)).schedule).toBe('updated');
    const back = new Date((await handle.describe()).info.nextActionTimes[0]!);
    expect([back.getUTCHours(), back.getUTCMinutes()]).toEqual([9, 0]);

    // Edited in the Web UI: the timing is set back to the manifest's; a pause is Temporal's to keep.
    await handle.update((previous) => ({ ...previous, spec: { ...previous.spec, calendars: [{ hour: 3 }] } }));
    await handle.pause('paused by hand');
    expect((await reconcileAppTriggers(env.client, db, appId)).schedule).toBe('updated');
    const edited = await handle.describe();
    expect([edited.spec.calendars ?? [], edited.spec.intervals?.[0]?.offset, edited.state]).toEqual([
      [],
      9 * 3_600_000,
      { paused: true, note: 'paused by hand' },
    ]);

    // A version without a workflow removes the schedule.
    await publishWorkflow(db, 'digest', '3.0.0', {});
    expect(await reconcileAppTriggers(env.client, db, appId)).toEqual({ schedule: 'deleted', changeTrigger: 'absent' });
    await expect(handle.describe()).rejects.toThrow();
  });
});

describe('change triggers and notify', () => {
  it('debounce changes by the cooldown, email each account once per notify cooldown', async () => {
    const subject = 'Orders changed';
    const appId = await publishWorkflow(db, 'watcher', '1.0.0', {
      workflow: {
        trigger: { change: { types: ['sales.Order'], cooldown: '10m' } },
        steps: [peopleStep, rowsStep, notifyStep(subject)],
      },
    });
    expect((await reconcileAppTriggers(env.client, db, appId)).changeTrigger).toBe('started');
    const change = async (seq: number, types = ['sales.Order']) => {
      await enqueue(db, {
        topic: 'ontology.changed',
        key: `op-${seq}`,
        payload: { companyId: FLOW_COMPANY.id, objectTypes: types, fromSeq: seq, toSeq: seq },
      });
      await relayDue({ db, client: env.client, logger: silent });
    };

    // Two changes within the cooldown make one run; a type the app does not watch makes none.
    await change(1);
    await change(2);
    await change(3, ['hr.Person']);
    await env.sleep(11 * 60_000);
    let runs = await finished(appId, 1);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: 'change', status: 'succeeded', workflow_id: `app-run:${appId}:change:2` });
    await until(
      async () => mailTo(subject).length,
      (n) => n >= 2,
    );
    expect(
      mailTo(subject)
        .flatMap((m) => m.to)
        .sort(),
    ).toEqual(RECIPIENTS);
    expect(mailTo(subject)[0]!.text).toBe('orders: 2');

    // Within the notify cooldown (6 h): the run goes, the email is suppressed.
    await change(4);
    await env.sleep(11 * 60_000);
    runs = await finished(appId, 2);
    const tell = (runs[1]!.steps as { id: string; status: string }[]).find((s) => s.id === 'tell');
    expect(tell?.status).toBe('suppressed');
    expect(mailTo(subject)).toHaveLength(2);

    // After it: sent again.
    await env.sleep(6 * 3_600_000);
    await change(5);
    await env.sleep(11 * 60_000);
    await finished(appId, 3);
    await until(
      async () => mailTo(subject).length,
      (n) => n >= 4,
    );
    expect(mailTo(subject)).toHaveLength(4);
    const rows = await db.selectFrom('workflow_notifications').select(['status']).where('app_id', '=', appId).execute();
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
  });

  it('runs on a committed data edit: the data layer’s writer → ontology.changed → the watching app’s trigger → a query export', async () => {
    const principal = FLOW_DEVELOPER;
    const deps = { db, clock: systemClock };
    await defineObjectTypes(deps, principal, FLOW_COMPANY.cellId, {
      types: [
        {
          apiName: 'crm.Lead',
          primaryKey: 'id',
          properties: { id: { dataType: { type: 'string' } }, score: { dataType: { type: 'integer' } } },
        },
      ],
    });
    await publishWorkflow(db, 'leads', '1.0.0', {
      exports: [{ name: 'hot', title: 'Hot leads', kind: 'query', type: 'crm.Lead', where: { score: { gte: 50 } }, sort: ['-score'] }],
    });
    const appId = await publishWorkflow(db, 'lead-watch', '1.0.0', {
      workflow: {
        trigger: { change: { types: ['crm.Lead'], cooldown: '2m' } },
        steps: [{ id: 'hot', kind: 'use', capability: 'leads.hot' }],
      },
    });
    await reconcileAppTriggers(env.client, db, appId);
    await editObjects(deps, principal, FLOW_COMPANY.cellId, {
      edits: [
        { type: 'create', objectType: 'crm.Lead', properties: { id: 'l1', score: 80 } },
        { type: 'create', objectType: 'crm.Lead', properties: { id: 'l2', score: 10 } },
      ],
    });
    await relayDue({ db, client: env.client, logger: silent });
    await env.sleep(3 * 60_000);
    const [run] = await finished(appId, 1);
    expect(run).toMatchObject({ trigger: 'change', status: 'succeeded', output: { hot: [{ id: 'l1', score: 80 }] } });
  });

  it('records a failing run as failed and keeps the change trigger running', async () => {
    const appId = await publishWorkflow(db, 'fragile', '1.0.0', {
      workflow: {
        trigger: { change: { types: ['sales.Invoice'], cooldown: '1m' } },
        steps: [{ id: 'broken', kind: 'compute', op: 'per-row', from: '=input.missing', fields: { x: '=1' } }],
      },
    });
    await reconcileAppTriggers(env.client, db, appId);
    for (const seq of [10, 11]) {
      await enqueue(db, {
        topic: 'ontology.changed',
        key: `invoice-${seq}`,
        payload: { companyId: FLOW_COMPANY.id, objectTypes: ['sales.Invoice'], fromSeq: seq, toSeq: seq },
      });
      await relayDue({ db, client: env.client, logger: silent });
      await env.sleep(2 * 60_000);
    }
    const runs = await finished(appId, 2);
    expect(runs.map((r) => [r.status, r.error])).toEqual([
      ['failed', expect.stringMatching(/^broken: from .* is not a list of rows/)],
      ['failed', expect.stringMatching(/^broken: /)],
    ]);
  });

  it('recipients whose license was removed or account disabled after upload are not mailed: skipped with the reason in the step output (issue 27 finding 8)', async () => {
    const subject = 'Gone since upload';
    // Two more people of the company, valid recipients when the version was uploaded.
    for (const name of ['cleo', 'dave']) {
      await db
        .insertInto('accounts')
        .values({ id: `acc_${name}`, username: name, email: `${name}@flow.example`, status: 'active', password_hash: null })
        .execute();
      await db
        .insertInto('licenses')
        .values({ account_id: `acc_${name}`, company_id: FLOW_COMPANY.id, role: 'member' })
        .execute();
    }
    const to = [RECIPIENTS[0]!, 'Cleo@flow.example', 'dave@flow.example'];
    const appId = await publishWorkflow(db, 'leavers', '1.0.0', {
      workflow: { steps: [notifyStep(subject, { to, body: 'hello', dedupeKey: '=run.id' })] },
    });
    // Then Cleo's account is disabled and Dave's license removed.
    await db.updateTable('accounts').set({ status: 'disabled' }).where('id', '=', 'acc_cleo').execute();
    await db.deleteFrom('licenses').where('account_id', '=', 'acc_dave').execute();

    await env.client.workflow.execute('appWorkflowRun', {
      taskQueue: TASK_QUEUE,
      workflowId: 'leavers-1',
      args: [{ appId, trigger: 'schedule' }],
    });
    expect(mailTo(subject).map((m) => m.to)).toEqual([[RECIPIENTS[0]]]);
    const [run] = await runsOf(appId);
    const step = (run!.steps as { id: string; status: string; output: { messages: unknown[] } }[])[0]!;
    expect(step.status).toBe('succeeded');
    const reason = expect.stringContaining('no longer an active account of the company');
    expect(step.output.messages).toEqual([
      { recipient: 'Cleo@flow.example', status: 'skipped', reason },
      { recipient: RECIPIENTS[0], status: 'sent' },
      { recipient: 'dave@flow.example', status: 'skipped', reason },
    ]);
    const counters = await db.selectFrom('usage_counters').select(['meter', 'amount']).where('app_id', '=', appId).execute();
    expect(Object.fromEntries(counters.map((c) => [c.meter, c.amount]))).toMatchObject({ 'notifications.sent': 1 });
  });

  it('an email the SMTP server refuses for now (451) is sent by the step’s retry, once; a final refusal was the outcome before', async () => {
    const subject = 'Refused once';
    const appId = await publishWorkflow(db, 'patient', '1.0.0', {
      workflow: { steps: [notifyStep(subject, { to: [RECIPIENTS[0]], body: 'hello', dedupeKey: '=run.id' })] },
    });
    const refusedBefore = smtp.refused;
    smtp.refuseNext(1);
    await env.client.workflow.execute('appWorkflowRun', {
      taskQueue: TASK_QUEUE,
      workflowId: 'patient-1',
      args: [{ appId, trigger: 'schedule' }],
    });
    expect(smtp.refused - refusedBefore).toBe(1);
    expect(mailTo(subject).map((m) => m.to)).toEqual([[RECIPIENTS[0]]]);
    const rows = await db.selectFrom('workflow_notifications').select(['status']).where('app_id', '=', appId).execute();
    expect(rows).toEqual([{ status: 'sent' }]);
    const [run] = await runsOf(appId);
    expect((run!.steps as { status: string }[])[0]!.status).toBe('succeeded');
  });

  it('an email the SMTP server refuses for now on every attempt (10) ends failed with the server’s answer, not `sending` for good', async () => {
    const subject = 'Refused always';
    const appId = await publishWorkflow(db, 'stubborn', '1.0.0', {
      workflow: { steps: [notifyStep(subject, { to: [RECIPIENTS[0]], body: 'hello', dedupeKey: '=run.id' })] },
    });
    const refusedBefore = smtp.refused;
    smtp.refuseNext(10);
    await env.client.workflow.execute('appWorkflowRun', {
      taskQueue: TASK_QUEUE,
      workflowId: 'stubborn-1',
      args: [{ appId, trigger: 'schedule' }],
    });
    expect(smtp.refused - refusedBefore).toBe(10);
    expect(mailTo(subject)).toEqual([]);
    const rows = await db.selectFrom('workflow_notifications').select(['status', 'error']).where('app_id', '=', appId).execute();
    expect(rows).toEqual([{ status: 'failed', error: expect.stringContaining('try again later') }]);
    const [run] = await runsOf(appId);
    expect((run!.steps as { status: string }[])[0]!.status).toBe('succeeded');
  });

  it('blocks and records the 21st email of a day (notificationsPerDay 20)', async () => {
    const subject = 'Capped';
    const appId = await publishWorkflow(db, 'chatty', '1.0.0', {
      workflow: { steps: [notifyStep(subject, { to: [RECIPIENTS[0]], body: 'hello', dedupeKey: '=run.id', cooldown: '1m' })] },
    });
    // Each run's cooldown timer lets the skipping clock jump a minute: start just after midnight.
    const now = await env.currentTimeMs();
    await env.sleep(DAY - (now % DAY) + 60_000);
    for (let i = 0; i < 21; i++) {
      await env.client.workflow.execute('appWorkflowRun', {
        taskQueue: TASK_QUEUE,
        workflowId: `chatty-${i}`,
        args: [{ appId, trigger: 'schedule' }],
      });
    }
    const rows = await db.selectFrom('workflow_notifications').select(['status']).where('app_id', '=', appId).execute();
    expect(rows.filter((r) => r.status === 'sent')).toHaveLength(20);
    expect(rows.filter((r) => r.status === 'blocked')).toHaveLength(1);
    expect(mailTo(subject)).toHaveLength(20);
    const days = await db.selectFrom('workflow_notifications').select('created_at').where('app_id', '=', appId).execute();
    expect(new Set(days.map((d) => d.created_at.toISOString().slice(0, 10))).size).toBe(1);
    const counters = await db.selectFrom('usage_counters').select(['meter', 'amount']).where('app_id', '=', appId).execute();
    expect(Object.fromEntries(counters.map((c) => [c.meter, c.amount]))).toMatchObject({
      'notifications.sent': 20,
      'notifications.blocked': 1,
    });
  });

  it("one cap per app and day: a step's dailyCap is its own share, counted by step, not the app's total", async () => {
    const subject = (step: string) => `Share ${step}`;
    const step = (id: string, extra: Record<string, unknown>) => ({
      ...notifyStep(subject(id), { to: [RECIPIENTS[0]], body: 'hello', dedupeKey: `=concat(run.id, "${id}")`, cooldown: '1m' }),
      id,
      ...extra,
    });
    const appId = await publishWorkflow(db, 'shares', '1.0.0', {
      workflow: { steps: [step('capped', { dailyCap: 2 }), step('open', {})] },
    });
    const now = await env.currentTimeMs();
    await env.sleep(DAY - (now % DAY) + 60_000);
    for (let i = 0; i < 3; i++) {
      await env.client.workflow.execute('appWorkflowRun', {
        taskQueue: TASK_QUEUE,
        workflowId: `shares-${i}`,
        args: [{ appId, trigger: 'schedule' }],
      });
    }
    const rows = await db.selectFrom('workflow_notifications').select(['step_id', 'status']).where('app_id', '=', appId).execute();
    const of = (id: string) =>
      rows
        .filter((r) => r.step_id === id)
        .map((r) => r.status)
        .sort();
    // With the app's total as the step's cap, `capped` would have been blocked from the second run on.
    expect(of('capped')).toEqual(['blocked', 'sent', 'sent']);
    expect(of('open')).toEqual(['sent', 'sent', 'sent']);
  });

  it('the default notify cooldown is 6 hours to the boundary: suppressed just before, sent just after', async () => {
    const subject = 'Six hours';
    const appId = await publishWorkflow(db, 'sixhours', '1.0.0', {
      workflow: { steps: [notifyStep(subject, { to: [RECIPIENTS[0]], body: 'hello', dedupeKey: 'same' })] },
    });
    // Started, then awaited through the database: a client awaiting a result would let the
    // skipping clock jump to the cooldown's end.
    const run = async (i: number) => {
      await env.client.workflow.start('appWorkflowRun', {
        taskQueue: TASK_QUEUE,
        workflowId: `sixhours-${i}`,
        args: [{ appId, trigger: 'schedule' }],
      });
      await finished(appId, i + 1);
    };
    const started = await env.currentTimeMs();
    await run(0);
    // The cooldown began between `started` and `sent` (milliseconds of real time apart).
    const sent = await env.currentTimeMs();
    const statuses = async () =>
      (await db.selectFrom('workflow_notifications').select('status').where('app_id', '=', appId).orderBy('created_at').execute()).map(
        (r) => r.status,
      );
    expect(await statuses()).toEqual(['sent']);

    await env.sleep(started + 6 * 3_600_000 - 10_000 - (await env.currentTimeMs()));
    await run(1);
    expect(await statuses()).toEqual(['sent']);

    await env.sleep(sent + 6 * 3_600_000 + 1_000 - (await env.currentTimeMs()));
    await run(2);
    expect(await statuses()).toEqual(['sent', 'sent']);
    await until(
      async () => mailTo(subject).length,
      (n) => n >= 2,
    );
  });
});

describe('steps', () => {
  it('run lanes side by side, skip steps whose `when` is false, join and summarize, and ask the model', async () => {
    const appId = await publishWorkflow(db, 'lanes', '1.0.0', {
      workflow: {
        steps: [
          peopleStep,
          { id: 'clock', kind: 'use', capability: 'platform.clock', lane: 'a' },
          {
            id: 'count',
            kind: 'compute',
            op: 'summarize',
            from: '=steps.people',
            groupBy: ['role'],
            measures: { n: { fn: 'count' } },
            lane: 'b',
          },
          {
            id: 'never',
            kind: 'compute',
            op: 'per-row',
            from: '=steps.people',
            fields: { x: '=1' },
            lane: 'a',
            when: '=len(steps.people) > 5',
          },
          { id: 'roles', kind: 'compute', op: 'join', left: '=steps.people', right: '=steps.count', on: { left: 'role', right: 'role' } },
          {
            id: 'judge',
            kind: 'model',
            prompt: 'Count them',
            input: '=steps.roles',
            fields: { people: { type: 'integer' }, fine: { type: 'boolean' } },
          },
        ],
      },
    });
    const result = await env.client.workflow.execute('appWorkflowRun', {
      taskQueue: TASK_QUEUE,
      workflowId: 'lanes-1',
      args: [{ appId, trigger: 'schedule' }],
    });
    expect(result).toMatchObject({
      status: 'succeeded',
      output: {
        count: [{ role: 'developer', n: 2 }],
        roles: [
          { username: 'ann', role: 'developer', n: 2 },
          { username: 'bob', role: 'developer', n: 2 },
        ],
        judge: { people: 2, fine: expect.any(Boolean) },
      },
    });
    expect(result.output).toHaveProperty('clock.date');
    const [run] = await runsOf(appId);
    const status = Object.fromEntries((run!.steps as { id: string; status: string }[]).map((s) => [s.id, s.status]));
    expect(status).toEqual({
      people: 'succeeded',
      clock: 'succeeded',
      count: 'succeeded',
      never: 'skipped',
      roles: 'succeeded',
      judge: 'succeeded',
    });
    const tokens = await db
      .selectFrom('usage_counters')
      .select('amount')
      .where('app_id', '=', appId)
      .where('meter', '=', 'model.tokens')
      .executeTakeFirst();
    expect(tokens?.amount).toBeGreaterThan(0);
  });

  it('runs the record, leading use and compute steps and the close as one local activity, each step recorded (issue 37)', async () => {
    const appId = await publishWorkflow(db, 'quick', '1.0.0', {
      workflow: {
        steps: [
          peopleStep,
          rowsStep,
          { id: 'roles', kind: 'compute', op: 'summarize', from: '=steps.rows', groupBy: ['role'], measures: { n: { fn: 'count' } } },
        ],
      },
    });
    const handle = await env.client.workflow.start('appWorkflowRun', {
      taskQueue: TASK_QUEUE,
      workflowId: 'quick-1',
      args: [{ appId, trigger: 'schedule' }],
    });
    expect(await handle.result()).toMatchObject({
      status: 'succeeded',
      output: { rows: [{ shout: 'ANN' }, { shout: 'BOB' }], roles: [{ role: 'developer', n: 2 }] },
    });
    const events = (await handle.fetchHistory()).events ?? [];
    const markers = events.flatMap((e) => (e.markerRecordedEventAttributes ? [e.markerRecordedEventAttributes.markerName] : []));
    // Patch markers aside, one local activity; nothing went through the server's activity queue.
    expect(markers.filter((m) => m !== 'core_patch')).toEqual(['core_local_activity']);
    expect(events.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
    const [run] = await runsOf(appId);
    expect(run).toMatchObject({ status: 'succeeded', output: { roles: [{ role: 'developer', n: 2 }] } });
    expect((run!.steps as { id: string; status: string }[]).map((s) => [s.id, s.status])).toEqual([
      ['people', 'succeeded'],
      ['rows', 'succeeded'],
      ['roles', 'succeeded'],
    ]);
    expect(run!.finished_at!.getTime()).toBeGreaterThanOrEqual(run!.started_at.getTime());
  });
});

describe('durability and quota', () => {
  it('resumes a run after its worker is killed mid-step without repeating a completed step’s email', async () => {
    const subject = 'Before the crash';
    const appId = await publishWorkflow(db, 'sturdy', '1.0.0', {
      workflow: {
        steps: [
          notifyStep(subject, { body: 'hello', dedupeKey: '=run.id' }),
          { id: 'judge', kind: 'model', prompt: 'Rate the week', input: '=steps.tell', fields: { score: { type: 'integer' } } },
        ],
      },
    });
    let entered: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      entered = resolve;
    });
    // Hangs until the worker's shutdown cancels the step.
    const hanging: ModelProvider = {
      name: 'hanging',
      analyze: (_request, signal) =>
        new Promise((_resolve, reject) => {
          entered();
          signal?.addEventListener('abort', () => reject(new Error('cancelled by shutdown')));
        }),
    };
    await workflows.replaceWorker({ models: hanging });
    const run = await env.client.workflow.start('appWorkflowRun', {
      taskQueue: TASK_QUEUE,
      workflowId: 'sturdy-1',
      args: [{ appId, trigger: 'schedule' }],
    });
    await reached;
    expect(mailTo(subject)).toHaveLength(2);
    await workflows.replaceWorker({ models: localModelProvider });
    expect(await run.result()).toMatchObject({ status: 'succeeded', output: { judge: { score: expect.any(Number) } } });
    expect(mailTo(subject)).toHaveLength(2);
    const [record] = await runsOf(appId);
    expect((record!.steps as { id: string; status: string }[]).map((s) => [s.id, s.status])).toEqual([
      ['tell', 'succeeded'],
      ['judge', 'succeeded'],
    ]);
  });

  it('starts no triggered run while compute minutes are used up, and meters each run', async () => {
    const appId = await publishWorkflow(db, 'metered', '1.0.0', {
      workflow: { steps: [peopleStep] },
      limits: { computeMinutesPerMonth: 1 },
    });
    const at = new Date(await env.currentTimeMs());
    const start = (id: string) =>
      env.client.workflow.execute('appWorkflowRun', { taskQueue: TASK_QUEUE, workflowId: id, args: [{ appId, trigger: 'schedule' }] });
    expect(await start('metered-1')).toMatchObject({ status: 'succeeded' });
    const metered = await db
      .selectFrom('usage_counters')
      .select('amount')
      .where('app_id', '=', appId)
      .where('meter', '=', 'compute.workflow')
      .executeTakeFirst();
    expect(metered?.amount).toBeGreaterThan(0);
    await recordUsage(db, [{ appId, meter: 'compute.workflow', amount: 60_000, at }]);
    expect(await start('metered-2')).toMatchObject({ status: 'skipped' });
    expect(await runsOf(appId)).toHaveLength(1);
  });
});

describe('the evaluation budget', () => {
  // platform.accounts supplies the list: no input at all. 35 members, added for these tests only.
  const members = Array.from({ length: 35 }, (_, i) => `acc_m${i}`);
  const membersStep = { id: 'members', kind: 'use', capability: 'platform.accounts', input: { role: 'member' } };
  beforeAll(async () => {
    await db
      .insertInto('accounts')
      .values(members.map((id) => ({ id, username: id, email: `${id}@flow.example`, status: 'active' as const, password_hash: null })))
      .execute();
    await db
      .insertInto('licenses')
      .values(members.map((id) => ({ account_id: id, company_id: FLOW_COMPANY.id, role: 'member' as const })))
      .execute();
  });
  afterAll(async () => {
    await db.deleteFrom('licenses').where('account_id', 'in', members).execute();
    await db.deleteFrom('accounts').where('id', 'in', members).execute();
  });
  const execute = (appId: string, workflowId: string) =>
    env.client.workflow.execute('appWorkflowRun', { taskQueue: TASK_QUEUE, workflowId, args: [{ appId, trigger: 'schedule' }] });
  const stepStatuses = async (appId: string) =>
    ((await runsOf(appId))[0]!.steps as { id: string; status: string }[]).map((s) => [s.id, s.status]);

  it('five nested maps over platform.accounts (35 members) fail their step at the budget, and the run with it', async () => {
    const deep =
      '=sum(map(steps.members, sum(map(steps.members, sum(map(steps.members, sum(map(steps.members, sum(map(steps.members, 1))))))))))';
    const appId = await publishWorkflow(db, 'deep-maps', '1.0.0', {
      workflow: { steps: [membersStep, { id: 'boom', kind: 'compute', op: 'per-row', from: '=steps.members', fields: { n: deep } }] },
    });
    const result = await execute(appId, 'deep-maps-1');
    expect(result).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^boom: evaluation budget exceeded: more than 1000000 steps/),
    });
    expect(await stepStatuses(appId)).toEqual([
      ['members', 'succeeded'],
      ['boom', 'failed'],
    ]);
  });

  it('counts all of a run’s steps against the run’s budget: the step that would pass it fails, naming the run’s budget', async () => {
    const when = '=sum(map(steps.members, sum(map(steps.members, sum(map(steps.members, 1 + 1 + 1 + 1)))))) > 0';
    // What one step counts (steps depend on the list's length only), measured with the evaluator itself.
    const budget = new EvaluationBudget();
    evaluateExpression(when, { steps: { members: members.map(() => ({})) } }, budget);
    const fit = Math.floor(RUN_EVALUATION_LIMITS.steps / budget.steps);
    expect(fit).toBeLessThan(38);
    const checks = Array.from({ length: fit + 1 }, (_, i) => ({ id: `c${i}`, kind: 'use', capability: 'platform.clock', when }));
    const appId = await publishWorkflow(db, 'many-steps', '1.0.0', { workflow: { steps: [membersStep, ...checks] } });
    const result = await execute(appId, 'many-steps-1');
    expect(result).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(new RegExp(`^c${fit}: evaluation budget exceeded: more than \\d+ steps, what is left of the run's`)),
    });
    const statuses = await stepStatuses(appId);
    expect(statuses.filter(([, status]) => status === 'succeeded')).toHaveLength(fit + 1);
    expect(statuses.at(-1)).toEqual([`c${fit}`, 'failed']);
  });
});
