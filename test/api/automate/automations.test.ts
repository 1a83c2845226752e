import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { ACTIONS } from '../../support/ontology-actions.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Automations over HTTP: the company's developers define, change, enable, disable, dry-run and
// delete them; another company sees none of them and cannot trigger them; a hostile where clause or
// parameter is a 4xx, never a 5xx. (Their runs through Temporal: test/workflows/automations.test.ts.)

let svc: TestService;
let dana: string;
let gus: string;
let mo: string;
const base = '/api/v1/automate/automations/cell-acme';

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  dana = await passwordKey(svc, 'dana');
  gus = await passwordKey(svc, 'gus');
  mo = await passwordKey(svc, 'mo');
  for (const [path, body] of [
    ['/api/v1/developer/semantic/cell-acme/types', SALES],
    ['/api/v1/developer/semantic/cell-acme/actionTypes', ACTIONS],
  ] as const) {
    const res = await svc.call('POST', path, { body, headers: bearer(dana) });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  }
  await release(svc, dana, { namespace: 'cell-acme', slug: 'order-desk', version: '1.0.0' });
  const orders = await svc.call('POST', '/api/v1/ontologies/cell-acme/objects/sales.Order/import', {
    body: [
      { number: 1, amount: 5000 },
      { number: 2, amount: 10 },
      { number: 3, amount: 2500, note: 'vip' },
    ],
    headers: bearer(dana),
  });
  expect(orders.status, JSON.stringify(orders.body)).toBeLessThan(300);
}, 120_000);
afterAll(async () => {
  await svc?.close();
});
beforeEach(() => resetRateLimits(svc));

const largeOrders = (more: Record<string, unknown> = {}) => ({
  name: 'flag-large-orders',
  app: 'order-desk',
  condition: {
    type: 'objectsChanged',
    objectType: 'sales.Order',
    changes: ['added'],
    where: { type: 'gte', field: 'amount', value: 1000 },
  },
  effects: [
    { type: 'action', action: 'sales.setNote', parameters: { order: { from: 'primaryKey' }, note: { from: 'value', value: 'large' } } },
    { type: 'notify', to: ['dana@example.com'], subject: 'Large order {{number}}', body: 'Amount {{amount}}' },
  ],
  cooldownSeconds: 60,
  ...more,
});

describe('automations', () => {
  let id: string;

  it('are created, listed, read, changed, disabled and enabled by the company’s developers, each naming its Temporal workflow', async () => {
    const created = await svc.call('POST', base, { body: largeOrders(), headers: bearer(dana) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    id = created.body.data.id;
    expect(created.body.data).toMatchObject({
      name: 'flag-large-orders',
      app: 'order-desk',
      enabled: true,
      retries: 3,
      cooldownSeconds: 60,
      dailyCap: 100,
      owner: 'dana',
      workflowId: `automation:${id}`,
      condition: { type: 'objectsChanged', changes: ['added'] },
    });
    const intents = await svc.database.db.selectFrom('outbox').select(['topic', 'key']).where('key', '=', id).execute();
    expect(intents).toEqual([{ topic: 'automation.changed', key: id }]);

    const again = await svc.call('POST', base, { body: largeOrders(), headers: bearer(dana) });
    expect([again.status, again.body.error.code]).toEqual([409, 'automation_name_exists']);

    const listed = await svc.call('GET', base, { headers: bearer(dana) });
    expect(listed.body.data.data.map((a: { id: string }) => a.id)).toEqual([id]);
    const changed = await svc.call('PATCH', `${base}/${id}`, { body: { dailyCap: 3, retries: 0 }, headers: bearer(dana) });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data).toMatchObject({ dailyCap: 3, retries: 0, cooldownSeconds: 60 });
    const disabled = await svc.call('POST', `${base}/${id}/disable`, { headers: bearer(dana) });
    expect(disabled.body.data.enabled).toBe(false);
    const enabled = await svc.call('POST', `${base}/${id}/enable`, { headers: bearer(dana) });
    expect(enabled.body.data.enabled).toBe(true);
    const got = await svc.call('GET', `${base}/${id}`, { headers: bearer(dana) });
    expect(got.body.data).toMatchObject({ id, enabled: true, dailyCap: 3 });
    const runs = await svc.call('GET', `${base}/${id}/runs`, { headers: bearer(dana) });
    expect([runs.status, runs.body.data.data]).toEqual([200, []]);
  });

  it('dry-runs against current data: which objects match, what each effect would do, and nothing changes', async () => {
    const before = await svc.database.db
      .selectFrom('outbox')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const dry = await svc.call('POST', `${base}/${id}/dryRun`, { headers: bearer(dana) });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.data).toMatchObject({ fires: true, condition: { matching: 2 }, blockedBy: [] });
    expect(dry.body.data.condition.sample.map((o: { number: number }) => o.number)).toEqual([1, 3]);
    expect(dry.body.data.effects).toEqual([
      {
        index: 0,
        type: 'action',
        wouldRun: true,
        detail: expect.objectContaining({
          parameters: { order: 1, note: 'large' },
          validation: expect.objectContaining({ result: 'VALID' }),
        }),
      },
      {
        index: 1,
        type: 'notify',
        wouldRun: true,
        detail: { recipients: [{ recipient: 'dana@example.com', sendable: true }], subject: 'Large order 1', body: 'Amount 5000' },
      },
    ]);
    const after = await svc.database.db
      .selectFrom('outbox')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
    expect(await svc.database.db.selectFrom('automation_runs').selectAll().execute()).toEqual([]);

    const none = await svc.call('PATCH', `${base}/${id}`, {
      body: { condition: { type: 'objectsChanged', objectType: 'sales.Order', where: { type: 'gt', field: 'amount', value: 1e9 } } },
      headers: bearer(dana),
    });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    const nothing = await svc.call('POST', `${base}/${id}/dryRun`, { headers: bearer(dana) });
    expect(nothing.body.data).toMatchObject({ fires: false, condition: { matching: 0, sample: [] } });
    expect(nothing.body.data.effects.map((e: { wouldRun: boolean }) => e.wouldRun)).toEqual([false, false]);
  });

  it('dry-runs a threshold: the aggregate’s value and whether it holds', async () => {
    const created = await svc.call('POST', base, {
      body: {
        name: 'revenue-alarm',
        app: 'order-desk',
        condition: {
          type: 'threshold',
          objectType: 'sales.Order',
          aggregation: { type: 'sum', field: 'amount' },
          operator: 'gt',
          value: 7000,
        },
        effects: [{ type: 'appWorkflow' }],
      },
      headers: bearer(dana),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const dry = await svc.call('POST', `${base}/${created.body.data.id}/dryRun`, { headers: bearer(dana) });
    expect(dry.body.data).toMatchObject({ fires: true, condition: { value: 7510 } });
  });

  it('are invisible to another company and refused to members; another company’s id is not found', async () => {
    const theirs = await svc.call('GET', '/api/v1/automate/automations/cell-globex', { headers: bearer(gus) });
    expect([theirs.status, theirs.body.data.data]).toEqual([200, []]);
    for (const [method, path] of [
      ['GET', base],
      ['GET', `${base}/${id}`],
      ['POST', `${base}/${id}/disable`],
      ['POST', `${base}/${id}/dryRun`],
      ['DELETE', `${base}/${id}`],
    ] as const) {
      const res = await svc.call(method, path, { headers: bearer(gus) });
      expect([path, res.status]).toEqual([path, 403]);
    }
    // Through its own namespace, Acme's automation does not exist for Globex.
    const crossed = await svc.call('POST', `/api/v1/automate/automations/cell-globex/${id}/disable`, { headers: bearer(gus) });
    expect([crossed.status, crossed.body.error.code]).toEqual([404, 'automation_not_found']);
    const member = await svc.call('GET', base, { headers: bearer(mo) });
    expect(member.status).toBe(403);
    const still = await svc.call('GET', `${base}/${id}`, { headers: bearer(dana) });
    expect(still.body.data.enabled).toBe(true);
  });

  it('answers hostile where clauses and parameters with 4xx, never a 5xx', async () => {
    let nested: unknown = { type: 'eq', field: 'amount', value: 1 };
    for (let i = 0; i < 50; i++) nested = { type: 'not', value: nested };
    const hostile: unknown[] = [
      { where: { type: 'eq', field: 'constructor', value: 1 } },
      { where: { type: 'eq', field: '__proto__', value: 1 } },
      { where: { type: 'eq', field: 'amount', value: 'x\u0000y' } },
      { where: { type: 'eq', field: 'amount', value: 'a'.repeat(20_000) } },
      { where: { type: 'gt', field: 'tags', value: 1 } },
      { where: { type: 'startsWith', field: 'amount', value: 'x' } },
      { where: nested },
      { where: { type: 'in', field: 'amount', value: Array.from({ length: 2000 }, (_, i) => i) } },
      { where: { type: 'eq', field: 'amount', value: 1, extra: true } },
    ];
    for (const condition of hostile) {
      const body = largeOrders({
        name: 'hostile',
        condition: { type: 'objectsChanged', objectType: 'sales.Order', ...(condition as object) },
      });
      const res = await svc.call('POST', base, { body, headers: bearer(dana) });
      expect([JSON.stringify(condition).slice(0, 80), res.status]).toEqual([JSON.stringify(condition).slice(0, 80), expect.any(Number)]);
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    const badEffects: unknown[] = [
      [{ type: 'action', action: 'sales.setNote', parameters: { order: { from: 'property', property: 'constructor' } } }],
      // An own key `__proto__` (JSON.parse makes one; an object literal would set the prototype instead).
      [{ type: 'action', action: 'sales.setNote', parameters: JSON.parse('{"__proto__": {"from": "primaryKey"}}') }],
      [{ type: 'action', action: 'sales.nope', parameters: {} }],
      [{ type: 'action', action: 'sales.setNote', parameters: { order: { from: 'value', value: { deep: 1 } } } }],
      [{ type: 'notify', to: ['not-an-email'], subject: 's', body: 'b' }],
      [{ type: 'notify', to: ['dana@example.com'], subject: 'x\u0000', body: 'b' }],
    ];
    for (const effects of badEffects) {
      const res = await svc.call('POST', base, { body: largeOrders({ name: 'hostile', effects }), headers: bearer(dana) });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    const unknownType = await svc.call('POST', base, {
      body: largeOrders({ name: 'hostile', condition: { type: 'objectsChanged', objectType: 'sales.Nope' } }),
      headers: bearer(dana),
    });
    expect([unknownType.status, unknownType.body.error.code]).toEqual([404, 'object_type_not_found']);
    const unknownField = await svc.call('POST', base, {
      body: { ...largeOrders({ name: 'hostile' }), constructor: 1 },
      headers: bearer(dana),
    });
    expect(unknownField.status).toBe(400);
    expect((await svc.call('GET', base, { headers: bearer(dana) })).body.data.data.map((a: { name: string }) => a.name)).not.toContain(
      'hostile',
    );
  });

  it('are deleted with their runs; the workflow ends through the outbox', async () => {
    const deleted = await svc.call('DELETE', `${base}/${id}`, { headers: bearer(dana) });
    expect([deleted.status, deleted.body.data]).toEqual([200, { deleted: true }]);
    const gone = await svc.call('GET', `${base}/${id}`, { headers: bearer(dana) });
    expect([gone.status, gone.body.error.code]).toEqual([404, 'automation_not_found']);
  });
});
