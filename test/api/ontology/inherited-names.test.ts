import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { ACTIONS } from '../../support/ontology-actions.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { openSse } from '../../support/sse.ts';

// Issue 28 finding 6: names of inherited object properties used as property, column or parameter
// names answered 500 (where, orderBy, select, aggregate metric and groupBy, subscription where,
// import, edits, apply). Only a definition's own names count: each is now a 4xx, and a property
// that really is named `constructor` works like any other.

let svc: TestService;
let devKey: string;
const O = '/api/v1/ontologies/cell-acme';
const INHERITED = ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty'] as const;

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  const thing = {
    apiName: 'misc.Thing',
    primaryKey: 'id',
    properties: { id: { dataType: { type: 'string' } }, constructor: { dataType: { type: 'integer' } } },
  };
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', {
    body: { ...SALES, types: [...SALES.types!, thing] },
    headers: bearer(devKey),
  });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  const actions = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', { body: ACTIONS, headers: bearer(devKey) });
  expect(actions.status, JSON.stringify(actions.body)).toBe(200);
  const imported = await svc.call('POST', `${O}/objects/sales.Customer/import`, {
    body: [{ id: 'c1', name: 'Ada', tier: 1 }],
    headers: bearer(devKey),
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const call = (method: string, path: string, body?: unknown) =>
  svc.call(method, path, { ...(body === undefined ? {} : { body }), headers: bearer(devKey) });

/** A 4xx that names the mistake: no property, no parameter, or a name the schema refuses. */
function expectRefused(res: { status: number; body: any }, what: string) {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
  expect(['query_invalid', 'invalid_payload', 'action_invalid'], what).toContain(res.body.error.code);
}

describe.each(INHERITED)('the inherited name %s', (name) => {
  it('in a search where, orderBy and select, and in GET ?select= (500 before, for every name a property may have)', async () => {
    expectRefused(await call('POST', `${O}/objects/sales.Customer/search`, { where: { type: 'eq', field: name, value: 1 } }), 'where eq');
    expectRefused(
      await call('POST', `${O}/objects/sales.Customer/search`, { where: { type: 'isNull', field: name, value: true } }),
      'where isNull',
    );
    expectRefused(await call('POST', `${O}/objects/sales.Customer/search`, { orderBy: { fields: [{ field: name }] } }), 'orderBy');
    expectRefused(await call('POST', `${O}/objects/sales.Customer/search`, { select: [name] }), 'select');
    expectRefused(await call('GET', `${O}/objects/sales.Customer?select=${name}`), 'GET select');
    expectRefused(await call('GET', `${O}/objects/sales.Customer?orderBy=properties.${name}:desc`), 'GET orderBy');
    expectRefused(await call('GET', `${O}/objects/sales.Customer/c1?select=${name}`), 'GET object select');
  });

  it('as an aggregate metric field and a groupBy field (500 before, for every name a property may have)', async () => {
    expectRefused(await call('POST', `${O}/objects/sales.Customer/aggregate`, { aggregation: [{ type: 'max', field: name }] }), 'metric');
    expectRefused(
      await call('POST', `${O}/objects/sales.Customer/aggregate`, {
        aggregation: [{ type: 'count' }],
        groupBy: [{ type: 'exact', field: name }],
      }),
      'groupBy',
    );
  });

  it('in a subscription where and propertySet (500 before, for every name a property may have)', async () => {
    const url = `${svc.url}/api/v1/ontologySubscriptions/ontologies/cell-acme/streamSubscriptions`;
    for (const request of [
      {
        objectSet: {
          type: 'filter',
          objectSet: { type: 'base', objectType: 'sales.Customer' },
          where: { type: 'eq', field: name, value: 1 },
        },
      },
      { objectSet: { type: 'base', objectType: 'sales.Customer' }, propertySet: [name] },
    ]) {
      const stream = await openSse(url, { requests: [request] }, bearer(devKey));
      stream.close();
      expectRefused(stream, JSON.stringify(request));
    }
  });

  it('as an imported column and an edited property (500 before, for every name a property may have)', async () => {
    // Set as an own key, as JSON.parse makes it (an object literal would set the prototype for __proto__).
    const row = JSON.parse(`{"id":"c9","name":"x",${JSON.stringify(name)}:1}`);
    expectRefused(await call('POST', `${O}/objects/sales.Customer/import`, [row]), 'import');
    expectRefused(
      await call('POST', `${O}/edits`, { edits: [{ type: 'create', objectType: 'sales.Customer', properties: row }] }),
      'create',
    );
    const { id: _id, ...changes } = row;
    expectRefused(
      await call('POST', `${O}/edits`, {
        edits: [{ type: 'modify', objectType: 'sales.Customer', primaryKey: 'c1', properties: changes }],
      }),
      'modify',
    );
    expect((await call('GET', `${O}/objects/sales.Customer/c9`)).status).toBe(404);
  });

  it('as an action parameter, in apply and applyBatch (500 before, for every name a property may have)', async () => {
    const parameters = JSON.parse(`{"id":"c8","name":"x",${JSON.stringify(name)}:1}`);
    const apply = await call('POST', `${O}/actions/sales.addCustomer/apply`, { parameters });
    expectRefused(apply, 'apply');
    // __proto__ is refused at the boundary (invalid_payload), the others by the action.
    if (name !== '__proto__') expect(apply.body.error.details).toMatchObject({ errorName: 'UnknownParameter', parameters: [name] });
    expectRefused(await call('POST', `${O}/actions/sales.addCustomer/applyBatch`, { requests: [{ parameters }] }), 'applyBatch');
  });

  it('in an action type definition: a criterion and a template naming it as a parameter, and a template assigning it as a property', async () => {
    const base = { apiName: 'sales.probe', parameters: { id: { dataType: { type: 'string' } } } };
    for (const actionType of [
      { ...base, submissionCriteria: [{ condition: { parameter: name, op: 'isNull', value: true } }], edits: [] },
      { ...base, edits: [{ type: 'deleteObject', object: name }] },
      { ...base, edits: [{ type: 'createObject', objectType: 'sales.Customer', properties: { id: { parameter: name } } }] },
      {
        ...base,
        edits: [
          {
            type: 'createObject',
            objectType: 'sales.Customer',
            properties: JSON.parse(`{"id":{"parameter":"id"},${JSON.stringify(name)}:{"value":1}}`),
          },
        ],
      },
    ]) {
      const res = await call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', { actionTypes: [actionType] });
      expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
      expect(['definition_invalid', 'invalid_payload']).toContain(res.body.error.code);
    }
  });
});

it('a property really named constructor is found, filtered, ordered, selected and aggregated like any other', async () => {
  const T = `${O}/objects/misc.Thing`;
  expect((await call('POST', `${T}/import`, [{ id: 'a', constructor: 2 }, { id: 'b', constructor: 5 }, { id: 'c' }])).status).toBe(200);
  const found = await call('POST', `${T}/search`, {
    where: { type: 'gt', field: 'constructor', value: 1 },
    orderBy: { fields: [{ field: 'constructor', direction: 'desc' }] },
    select: ['constructor'],
  });
  expect(found.status, JSON.stringify(found.body)).toBe(200);
  expect(found.body.data.data.map((o: { id: string; constructor: number }) => [o.id, o.constructor])).toEqual([
    ['b', 5],
    ['a', 2],
  ]);
  const sum = await call('POST', `${T}/aggregate`, { aggregation: [{ type: 'sum', field: 'constructor', name: 's' }] });
  expect(sum.body.data.data[0].metrics).toEqual([{ name: 's', value: 7 }]);
  // A missing value of an own property is absent, never the inherited function.
  const c = await call('GET', `${T}/c`);
  expect(c.status).toBe(200);
  expect(Object.hasOwn(c.body.data, 'constructor') ? c.body.data.constructor : undefined).toBeUndefined();
});
