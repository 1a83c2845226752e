import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginRun, finishRun, listRunEvents, localModelProvider, runStep, type StepRecord } from '../../../domain/app-workflows/index.ts';
import { createUsageMeter } from '../../../domain/usage/index.ts';
import { workflowSchema } from '../../../schemas/manifest/workflow.ts';
import { publishWorkflow, seedFlowCompany } from '../../support/app-workflows.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

// Run records are written in groups (one transaction for the runs, steps and closes that arrive
// meanwhile): concurrent runs of one app must still give every run all its steps, and the app's
// events one gapless sequence in which each run's events keep their order.

const workflow = {
  steps: [
    { id: 'people', kind: 'use', capability: 'platform.accounts' },
    { id: 'count', kind: 'compute', op: 'summarize', from: '=steps.people', groupBy: ['role'], measures: { n: { fn: 'count' } } },
  ],
};

let t: TestDatabase;
let appId: string;
beforeAll(async () => {
  t = await createTestDatabase();
  await seedFlowCompany(t.db);
  appId = await publishWorkflow(t.db, 'grouped', '1.0.0', { workflow });
});
afterAll(() => t?.drop());

describe('run records written in groups', () => {
  it('40 concurrent runs of one app: each run complete, the events numbered 1..n without a gap, each run in order', async () => {
    const db = t.db;
    const meter = createUsageMeter(db);
    const steps = workflowSchema.parse(workflow).steps;
    const run = async (i: number) => {
      const begun = await beginRun(db, { appId, trigger: 'schedule', workflowId: `grouped-${i}`, at: new Date().toISOString() });
      if (begun.skipped) throw new Error(begun.reason);
      const outputs: Record<string, unknown> = {};
      for (const step of steps) {
        const scope = { ...begun.scope, steps: outputs };
        outputs[step.id] = (
          await runStep({ db, models: localModelProvider, meter }, { runId: begun.runId, step, scope, at: new Date().toISOString() })
        ).output;
      }
      await finishRun(db, { runId: begun.runId, status: 'succeeded', output: outputs, at: new Date().toISOString() });
      return begun.runId;
    };
    const runIds = await Promise.all(Array.from({ length: 40 }, (_, i) => run(i)));

    const rows = await db.selectFrom('workflow_runs').select(['id', 'status', 'steps']).where('app_id', '=', appId).execute();
    expect(rows).toHaveLength(40);
    for (const r of rows) {
      expect(r.status).toBe('succeeded');
      expect((r.steps as StepRecord[]).map((s) => [s.id, s.status])).toEqual([
        ['people', 'succeeded'],
        ['count', 'succeeded'],
      ]);
    }
    const events = await listRunEvents(db, appId, 0, 1000);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 40 * 4 }, (_, i) => i + 1));
    for (const id of runIds) {
      const mine = events.filter((e) => e.event.runId === id).map((e) => (e.event.type === 'run' ? e.event.status : e.event.step.id));
      expect(mine).toEqual(['running', 'people', 'count', 'succeeded']);
    }
    // Each close metered once.
    const usage = await db
      .selectFrom('usage_counters')
      .select('amount')
      .where('app_id', '=', appId)
      .where('meter', '=', 'compute.workflow')
      .execute();
    expect(usage).toHaveLength(1);
    expect(Number(usage[0]!.amount)).toBeGreaterThanOrEqual(40);
  });

  it('a retried begin finds its run, a repeated close changes nothing, and a step of a deleted run fails alone', async () => {
    const db = t.db;
    const at = new Date().toISOString();
    const [a, again] = await Promise.all([
      beginRun(db, { appId, trigger: 'schedule', workflowId: 'retried', at }),
      beginRun(db, { appId, trigger: 'schedule', workflowId: 'retried', at }),
    ]);
    if (a.skipped || again.skipped) throw new Error('skipped');
    expect(again.runId).toBe(a.runId);
    const b = await beginRun(db, { appId, trigger: 'schedule', workflowId: 'other', at });
    if (b.skipped) throw new Error('skipped');
    await db.deleteFrom('workflow_runs').where('id', '=', b.runId).execute();
    const meter = createUsageMeter(db);
    const people = workflowSchema.parse(workflow).steps[0]!;
    const [good, bad] = await Promise.allSettled([
      runStep({ db, models: localModelProvider, meter }, { runId: a.runId, step: people, scope: { ...a.scope, steps: {} }, at }),
      runStep({ db, models: localModelProvider, meter }, { runId: b.runId, step: people, scope: { ...b.scope, steps: {} }, at }),
    ]);
    expect(good.status).toBe('fulfilled');
    expect(bad.status).toBe('rejected');
    await Promise.all([
      finishRun(db, { runId: a.runId, status: 'succeeded', output: 1, at }),
      finishRun(db, { runId: a.runId, status: 'failed', output: 2, error: 'late', at }),
    ]);
    const closed = await db.selectFrom('workflow_runs').select(['status', 'output']).where('id', '=', a.runId).executeTakeFirstOrThrow();
    expect(closed).toEqual({ status: 'succeeded', output: 1 });
    const closes = (await listRunEvents(db, appId, 0, 1000)).filter((e) => e.event.runId === a.runId && e.event.type === 'run');
    expect(closes.map((e) => (e.event as { status: string }).status)).toEqual(['running', 'succeeded']);
  });
});
