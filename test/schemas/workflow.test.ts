import { describe, expect, it } from 'vitest';
import { durationSeconds } from '../../schemas/manifest/duration.ts';
import { expectProblemAt, parsed, problemsOf } from './manifest-helpers.ts';

const notify = {
  id: 'alert',
  kind: 'notify',
  to: ['ops@acme.example'],
  subject: 'Large order',
  body: '=steps.big.rows',
  dedupeKey: '=steps.big.rows[0].id',
};
const steps = [
  { id: 'orders', kind: 'use', capability: 'sales-board.open_orders', input: { region: 'north', limit: 50 } },
  { id: 'customers', kind: 'use', capability: 'crm.customers', lane: 'crm' },
  {
    id: 'enriched',
    kind: 'compute',
    op: 'join',
    left: '=steps.orders.rows',
    right: '=steps.customers.rows',
    on: { left: 'customerId', right: 'id' },
  },
  { id: 'scored', kind: 'compute', op: 'per-row', from: '=steps.enriched.rows', fields: { total: '=row.amount * row.quantity' } },
  {
    id: 'by_region',
    kind: 'compute',
    op: 'summarize',
    from: '=steps.scored.rows',
    groupBy: ['region'],
    measures: { orders: { fn: 'count' }, revenue: { fn: 'sum', of: 'total' } },
  },
  {
    id: 'big',
    kind: 'model',
    prompt: 'Which orders look unusual?',
    input: '=steps.scored.rows',
    fields: { unusual: { type: 'boolean' }, reason: { type: 'text', description: 'one sentence' } },
  },
  { ...notify, when: '=steps.big.rows.length > 0' },
];
const workflow = (overrides: Record<string, unknown> = {}) => ({
  trigger: { schedule: { every: '1d', at: '07:30' } },
  steps,
  ...overrides,
});
const withWorkflow = (overrides: Record<string, unknown> = {}) => ({ sdk: ['semantic'], workflow: workflow(overrides) });

describe('durations', () => {
  it('parses s, m, h and d', () => {
    expect([durationSeconds('30s'), durationSeconds('5m'), durationSeconds('2h'), durationSeconds('7d')]).toEqual([30, 300, 7200, 604800]);
    expect(durationSeconds('5 m')).toBeUndefined();
    expect(durationSeconds('0m')).toBeUndefined();
  });
});

describe('workflow', () => {
  it('accepts every step kind and fills step defaults', () => {
    const manifest = parsed(withWorkflow());
    const [, , join, , summarize, , alert] = manifest.workflow?.steps ?? [];
    expect(join).toMatchObject({ type: 'inner' });
    expect(summarize).toMatchObject({ groupBy: ['region'] });
    expect(alert).toMatchObject({ cooldown: '6h' });
    // No share of its own unless it says so: the app's notificationsPerDay is the one cap.
    expect(alert).not.toHaveProperty('dailyCap');
  });

  it('requires semantic (or legacy workflow) in sdk', () => {
    expectProblemAt(problemsOf({ workflow: workflow() }), 'manifest.sdk', 'workflow_sdk_missing');
    expect(problemsOf({ sdk: ['workflow'], workflow: workflow() })).toEqual([]);
    expect(problemsOf({ sdk: ['data'], workflow: workflow() })).toEqual([]);
  });

  it('reports the missing sdk together with unrelated problems', () => {
    const problems = problemsOf({ title: '', unknown: true, workflow: workflow() });
    expectProblemAt(problems, 'manifest.unknown', 'unrecognized_keys');
    expectProblemAt(problems, 'manifest.title');
    expectProblemAt(problems, 'manifest.sdk', 'workflow_sdk_missing');
  });

  it('change trigger: types and cooldown (default 5m)', () => {
    const manifest = parsed(withWorkflow({ trigger: { change: { types: ['sales.Order'] } } }));
    expect(manifest.workflow?.trigger?.change).toEqual({ types: ['sales.Order'], cooldown: '5m' });
    expectProblemAt(
      problemsOf(withWorkflow({ trigger: { change: { types: [] } } })),
      'manifest.workflow.trigger.change.types',
      'too_small',
    );
    expectProblemAt(
      problemsOf(withWorkflow({ trigger: { change: { types: ['a'], cooldown: '10s' } } })),
      'manifest.workflow.trigger.change.cooldown',
      'duration_too_short',
    );
  });

  it('schedule: every from 5m to 7d; denser than 5m is rejected', () => {
    expect(problemsOf(withWorkflow({ trigger: { schedule: { every: '5m' } } }))).toEqual([]);
    expect(problemsOf(withWorkflow({ trigger: { schedule: { every: '7d' } } }))).toEqual([]);
    expectProblemAt(
      problemsOf(withWorkflow({ trigger: { schedule: { every: '4m' } } })),
      'manifest.workflow.trigger.schedule.every',
      'duration_too_short',
    );
    expectProblemAt(
      problemsOf(withWorkflow({ trigger: { schedule: { every: '299s' } } })),
      'manifest.workflow.trigger.schedule.every',
      'duration_too_short',
    );
    expectProblemAt(
      problemsOf(withWorkflow({ trigger: { schedule: { every: '8d' } } })),
      'manifest.workflow.trigger.schedule.every',
      'duration_too_long',
    );
    expectProblemAt(
      problemsOf(withWorkflow({ trigger: { schedule: { every: 'hourly' } } })),
      'manifest.workflow.trigger.schedule.every',
      'invalid_format',
    );
  });

  it('schedule: `at` is a UTC HH:MM and only for daily runs', () => {
    expect(problemsOf(withWorkflow({ trigger: { schedule: { every: '24h', at: '23:59' } } }))).toEqual([]);
    expectProblemAt(
      problemsOf(withWorkflow({ trigger: { schedule: { every: '1d', at: '24:00' } } })),
      'manifest.workflow.trigger.schedule.at',
      'invalid_format',
    );
    expectProblemAt(
      problemsOf(withWorkflow({ trigger: { schedule: { every: '12h', at: '07:00' } } })),
      'manifest.workflow.trigger.schedule.at',
      'schedule_at_not_daily',
    );
  });

  it.each([
    [{ steps: [] }, 'manifest.workflow.steps', 'too_small'],
    [{ steps: [{ ...notify, kind: 'email' }] }, 'manifest.workflow.steps[0].kind', 'invalid_union'],
    [{ steps: [{ id: 'x', kind: 'compute', op: 'pivot', from: '=a' }] }, 'manifest.workflow.steps[0].op', 'invalid_union'],
    [{ steps: [{ ...notify, when: 'always' }] }, 'manifest.workflow.steps[0].when', 'invalid_format'],
    [{ steps: [{ ...notify, lane: 'Lane 1' }] }, 'manifest.workflow.steps[0].lane', 'invalid_format'],
    [{ steps: [{ ...notify, id: 'Alert' }] }, 'manifest.workflow.steps[0].id', 'invalid_format'],
    [{ steps: [{ ...notify, to: ['not-an-email'] }] }, 'manifest.workflow.steps[0].to[0]', 'invalid_format'],
    [{ steps: [{ ...notify, to: ['a@acme.example', 'A@acme.example'] }] }, 'manifest.workflow.steps[0].to[1]', 'duplicate'],
    [{ steps: [{ ...notify, to: [] }] }, 'manifest.workflow.steps[0].to', 'too_small'],
    [{ steps: [{ ...notify, subject: 'x'.repeat(251) }] }, 'manifest.workflow.steps[0].subject', 'too_big'],
    [{ steps: [{ ...notify, body: 'x'.repeat(1001) }] }, 'manifest.workflow.steps[0].body', 'too_big'],
    [{ steps: [{ ...notify, dedupeKey: '' }] }, 'manifest.workflow.steps[0].dedupeKey', 'too_small'],
    [{ steps: [{ ...notify, cooldown: '30s' }] }, 'manifest.workflow.steps[0].cooldown', 'duration_too_short'],
    [{ steps: [{ ...notify, dailyCap: 0 }] }, 'manifest.workflow.steps[0].dailyCap', 'too_small'],
    [
      { steps: [{ id: 'a', kind: 'compute', op: 'per-row', from: 'rows', fields: { x: '=1' } }] },
      'manifest.workflow.steps[0].from',
      'invalid_format',
    ],
    [
      { steps: [{ id: 'a', kind: 'compute', op: 'per-row', from: '=rows', fields: {} }] },
      'manifest.workflow.steps[0].fields',
      'entry_count',
    ],
    [
      { steps: [{ id: 'a', kind: 'compute', op: 'summarize', from: '=rows', measures: { s: { fn: 'sum' } } }] },
      'manifest.workflow.steps[0].measures.s.of',
      'measure_of_missing',
    ],
    [
      { steps: [{ id: 'a', kind: 'model', prompt: 'p', input: '=rows', fields: { x: { type: 'blob' } } }] },
      'manifest.workflow.steps[0].fields.x.type',
      'invalid_value',
    ],
    [{ steps: [{ id: 'a', kind: 'use', capability: 'x', extra: 1 }] }, 'manifest.workflow.steps[0].extra', 'unrecognized_keys'],
    [{ steps: [notify, notify] }, 'manifest.workflow.steps[1].id', 'duplicate'],
    [
      {
        steps: [
          { ...notify, body: '=steps.later.rows' },
          { id: 'later', kind: 'use', capability: 'x' },
        ],
      },
      'manifest.workflow.steps[0]',
      'step_reference',
    ],
  ])('rejects %j', (overrides, path, code) => {
    expectProblemAt(problemsOf(withWorkflow(overrides)), path, code);
  });

  it('a workflow may have no trigger (run on demand only)', () => {
    expect(problemsOf({ sdk: ['semantic'], workflow: { steps: [{ ...notify, body: 'Hello', dedupeKey: 'daily' }] } })).toEqual([]);
  });
});
