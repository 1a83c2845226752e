import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findOntology } from '../../../domain/ontology/repository.ts';
import { writeEdits } from '../../../domain/ontology/write-edits.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { ACTIONS, PAY_ORDER } from '../../support/ontology-actions.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Action types, apply, applyBatch and edits history over real HTTP and PostgreSQL.

let svc: TestService;
let devKey: string;
let memberKey: string;
let devCookie: string;
const O = '/api/v1/ontologies/cell-acme';
const ACTION_TYPES = '/api/v1/developer/semantic/cell-acme/actionTypes';
const apply = (action: string) => `${O}/actions/${action}/apply`;

async function createOrders(...numbers: number[]) {
  const ontology = (await findOntology(svc.database.db, 'cell-acme'))!;
  await svc.database.db.transaction().execute((trx) =>
    writeEdits(trx, {
      companyId: ontology.companyId,
      accountId: null,
      operationId: `seed-${numbers.join('-')}`,
      actionTypeRid: null,
      edits: numbers.map((number) => ({ type: 'create' as const, objectType: 'sales.Order', properties: { number, paid: false } })),
    }),
  );
}
const getObject = async (type: string, key: string | number) =>
  (await svc.call('GET', `${O}/objects/${type}/${key}`, { headers: bearer(devKey) })).body;
const history = async (type: string, body: object = {}) =>
  svc.call('POST', `${O}/objectTypes/${type}/editsHistory`, { body, headers: bearer(devKey) });
const logRecords = (name: string) =>
  svc.database.db.selectFrom('app_log_events').selectAll().where('kind', '=', 'action').where('name', '=', name).orderBy('at').execute();

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  devCookie = await signIn(svc, 'dana');
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(devKey) })).status).toBe(200);
  // The members' app lists the orders and the pay action only.
  await release(svc, devKey, {
    namespace: 'cell-acme',
    slug: 'crm',
    version: '1.0.0',
    manifest: { semantic: { types: ['sales.Order'], actions: ['sales.payOrder'] } },
  });
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

describe('action type definitions', () => {
  it('refuses a definition naming what does not exist, with each path (422)', async () => {
    const bad = {
      actionTypes: [
        {
          ...PAY_ORDER,
          parameters: { ...PAY_ORDER.parameters, who: { dataType: { type: 'objectReference', objectType: 'sales.Nobody' } } },
          edits: [{ type: 'modifyObject', object: 'order', properties: { paid: { value: 'yes' }, colour: { value: 'red' } } }],
        },
      ],
    };
    const res = await svc.call('POST', ACTION_TYPES, { body: bad, headers: bearer(devKey) });
    expect([res.status, res.body.error.code]).toEqual([422, 'definition_invalid']);
    expect(res.body.error.details.problems.map((p: { path: string; code: string }) => [p.path, p.code])).toEqual([
      ['actionTypes[0].parameters.who.dataType.objectType', 'ObjectTypeNotFound'],
      ['actionTypes[0].edits[0].properties.paid.value', 'InvalidPropertyValue'],
      ['actionTypes[0].edits[0].properties.colour', 'PropertiesNotFound'],
    ]);
    const unknownField = await svc.call('POST', ACTION_TYPES, {
      body: { actionTypes: [{ ...PAY_ORDER, code: 'x' }] },
      headers: bearer(devKey),
    });
    expect([unknownField.status, unknownField.body.error.details.problems[0].path]).toEqual([422, 'actionTypes[0].code']);
  });

  it('defines action types for developers only, versioned', async () => {
    const member = await svc.call('POST', ACTION_TYPES, { body: ACTIONS, headers: bearer(memberKey) });
    expect([member.status, member.body.error.code]).toEqual([403, 'forbidden']);
    const res = await svc.call('POST', ACTION_TYPES, { body: ACTIONS, headers: browser(devCookie, svc) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(
      res.body.data.actionTypes.map((a: { apiName: string; version: number; change: string }) => [a.apiName, a.version, a.change]),
    ).toEqual([
      ['sales.addCustomer', 1, 'created'],
      ['sales.assignOrder', 1, 'created'],
      ['sales.payOrder', 1, 'created'],
      ['sales.setNote', 1, 'created'],
    ]);
    const again = await svc.call('POST', ACTION_TYPES, {
      body: { actionTypes: [{ ...PAY_ORDER, description: 'Marks it paid.' }] },
      headers: bearer(devKey),
    });
    expect(again.body.data.actionTypes[0]).toMatchObject({ apiName: 'sales.payOrder', version: 2, change: 'changed' });
    const same = await svc.call('POST', ACTION_TYPES, {
      body: { actionTypes: [{ ...PAY_ORDER, description: 'Marks it paid.' }] },
      headers: bearer(devKey),
    });
    expect(same.body.data.actionTypes[0]).toMatchObject({ version: 2, change: 'unchanged' });
    const versions = await svc.database.db.selectFrom('action_type_versions').select('version').execute();
    expect(versions).toHaveLength(5);
  });

  it('lists to each caller the action types it may run', async () => {
    const dev = await svc.call('GET', `${O}/actionTypes`, { headers: bearer(devKey) });
    expect(dev.body.data.data.map((a: { apiName: string }) => a.apiName)).toEqual([
      'sales.addCustomer',
      'sales.assignOrder',
      'sales.payOrder',
      'sales.setNote',
    ]);
    const member = await svc.call('GET', `${O}/actionTypes`, { headers: bearer(memberKey) });
    expect(member.body.data.data.map((a: { apiName: string }) => a.apiName)).toEqual(['sales.payOrder']);
    const one = await svc.call('GET', `${O}/actionTypes/sales.payOrder`, { headers: bearer(memberKey) });
    expect(one.body.data).toMatchObject({
      apiName: 'sales.payOrder',
      status: 'ACTIVE',
      version: 2,
      parameters: { note: { required: false } },
    });
    const hidden = await svc.call('GET', `${O}/actionTypes/sales.addCustomer`, { headers: bearer(memberKey) });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'action_type_not_found']);
  });
});

describe('apply', () => {
  it('a member runs a listed action through its app: edits, edits history and the app log record', async () => {
    await createOrders(1);
    const res = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 1, note: 'cash' }, options: { returnEdits: 'ALL' } },
      headers: { ...bearer(memberKey), 'x-svc-app': 'cell-acme/crm' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.validation).toEqual({
      result: 'VALID',
      submissionCriteria: [{ configuredFailureMessage: 'The order is paid already.', result: 'VALID' }],
      parameters: {
        order: { result: 'VALID', required: true, evaluatedConstraints: [] },
        note: { result: 'VALID', required: false, evaluatedConstraints: [] },
      },
    });
    expect(res.body.data.edits).toMatchObject({
      modifiedObjectsCount: 1,
      edits: [{ type: 'modifyObject', objectType: 'sales.Order', primaryKey: 1 }],
    });
    expect(await getObject('sales.Order', 1)).toMatchObject({ data: { paid: true, note: 'cash', __rev: 2 } });

    const edits = await history('sales.Order', { filters: { primaryKey: 1 } });
    expect(edits.body.data.data[0]).toMatchObject({
      objectPrimaryKey: 1,
      operationId: res.body.data.operationId,
      actionTypeRid: expect.stringMatching(/^ri\.ontology\.svc\.action-type\./),
      edit: { type: 'modifyEdit', before: { paid: false, __rev: 1 }, after: { paid: true, note: 'cash', __rev: 2 } },
    });
    const [record] = await logRecords('sales.payOrder');
    expect(record).toMatchObject({ source: 'service', channel: 'production' });
    expect(record!.data).toMatchObject({
      operationId: res.body.data.operationId,
      parameters: { order: 1, note: 'cash' },
      objects: [{ objectType: 'sales.Order', primaryKey: 1, before: { paid: false }, after: { paid: true } }],
      summary: 'Pay order: modified sales.Order 1',
    });
  });

  it('an app runs it with its ticket: the record goes to that app, at the ticket’s version', async () => {
    await createOrders(5);
    const cookie = await signIn(svc, 'mo');
    const { ticket } = injected((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/crm`, { cookie })).text);
    const res = await svc.call('POST', apply('sales.payOrder'), { body: { parameters: { order: 5 } }, headers: bearer(ticket) });
    expect(res.body.data.validation.result, JSON.stringify(res.body)).toBe('VALID');
    const record = (await logRecords('sales.payOrder')).find(
      (r) => (r.data as { operationId: string }).operationId === res.body.data.operationId,
    );
    const app = await svc.database.db
      .selectFrom('apps')
      .select(['id', 'production_version_id'])
      .where('slug', '=', 'crm')
      .executeTakeFirstOrThrow();
    expect(record).toMatchObject({ app_id: app.id, version_id: app.production_version_id, channel: 'production' });
    const elsewhere = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 5 } },
      headers: { ...bearer(ticket), 'x-svc-app': 'cell-acme/other' },
    });
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([403, 'forbidden']);
  });

  it('an app that lists an action but no type may still run it with its ticket', async () => {
    await createOrders(6);
    await release(svc, devKey, {
      namespace: 'cell-acme',
      slug: 'till',
      version: '1.0.0',
      manifest: { semantic: { types: [], actions: ['sales.payOrder'] } },
    });
    const cookie = await signIn(svc, 'mo');
    const { ticket } = injected((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/till`, { cookie })).text);
    const res = await svc.call('POST', apply('sales.payOrder'), { body: { parameters: { order: 6 } }, headers: bearer(ticket) });
    expect(res.body.data?.validation.result, JSON.stringify(res.body)).toBe('VALID');
    // It reads nothing: the orders are not listed for it.
    const read = await svc.call('GET', `${O}/objects/sales.Order/6`, { headers: bearer(ticket) });
    expect([read.status, read.body.error.code]).toEqual([404, 'object_type_not_found']);
  });

  it('cannot run an action its apps do not list (404), nor name another company’s app', async () => {
    const res = await svc.call('POST', apply('sales.setNote'), {
      body: { parameters: { order: 1, note: 'x' } },
      headers: bearer(memberKey),
    });
    expect([res.status, res.body.error.code]).toEqual([404, 'action_type_not_found']);
    const other = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 1 } },
      headers: { ...bearer(devKey), 'x-svc-app': 'cell-globex/crm' },
    });
    expect([other.status, other.body.error.code]).toEqual([403, 'forbidden']);
    // A restricted app the member cannot open is no app it acts through.
    await release(svc, devKey, { namespace: 'cell-acme', slug: 'secret', version: '1.0.0', manifest: { auth: { access: 'restricted' } } });
    const secret = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 1 } },
      headers: { ...bearer(memberKey), 'x-svc-app': 'cell-acme/secret' },
    });
    expect([secret.status, secret.body.error.code]).toEqual([403, 'forbidden']);
    const missing = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 1 } },
      headers: { ...bearer(devKey), 'x-svc-app': 'cell-acme/nothing' },
    });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'app_not_found']);
  });

  it('answers an invalid run with 200 INVALID and writes nothing', async () => {
    const paid = await svc.call('POST', apply('sales.payOrder'), { body: { parameters: { order: 1 } }, headers: bearer(devKey) });
    expect(paid.status).toBe(200);
    expect(paid.body.data.validation.result).toBe('INVALID');
    expect(paid.body.data.validation.submissionCriteria).toEqual([
      { configuredFailureMessage: 'The order is paid already.', result: 'INVALID' },
    ]);
    expect(paid.body.data.operationId).toBeUndefined();
    const missing = await svc.call('POST', apply('sales.payOrder'), { body: { parameters: { order: 999 } }, headers: bearer(devKey) });
    expect(missing.body.data.validation.parameters.order).toMatchObject({ result: 'INVALID', reason: 'order names no sales.Order.' });
    const wrongType = await svc.call('POST', apply('sales.addCustomer'), {
      body: { parameters: { id: 'c9', name: 7 } },
      headers: bearer(devKey),
    });
    expect(wrongType.body.data.validation.parameters.name.result).toBe('INVALID');
    const negative = await svc.call('POST', apply('sales.addCustomer'), {
      body: { parameters: { id: 'c9', name: 'N', tier: -1 } },
      headers: bearer(devKey),
    });
    expect(negative.body.data.validation).toMatchObject({ result: 'INVALID', submissionCriteria: [{ result: 'INVALID' }] });
    expect((await getObject('sales.Customer', 'c9')).error.code).toBe('object_not_found');
    expect((await getObject('sales.Order', 1)).data.__rev).toBe(2);
    const unknown = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 1, colour: 'red' } },
      headers: bearer(devKey),
    });
    expect([unknown.status, unknown.body.error.code, unknown.body.error.details.errorName]).toEqual([
      422,
      'action_invalid',
      'UnknownParameter',
    ]);
  });

  it('VALIDATE_ONLY and dry runs write nothing; ifRev is checked before validation', async () => {
    await createOrders(2);
    const only = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 2 }, options: { mode: 'VALIDATE_ONLY' } },
      headers: bearer(devKey),
    });
    expect(only.body.data.validation.result).toBe('VALID');
    const dry = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 2 } },
      headers: { ...bearer(devKey), 'x-svc-dry-run': 'true' },
    });
    expect(dry.status).toBe(202);
    expect(await getObject('sales.Order', 2)).toMatchObject({ data: { paid: false, __rev: 1 } });
    const stale = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 2 }, ifRev: { order: 7 }, options: { mode: 'VALIDATE_ONLY' } },
      headers: bearer(devKey),
    });
    expect([stale.status, stale.body.error.code, stale.body.error.details.currentRev]).toEqual([409, 'rev_mismatch', 1]);
    // Checked before validation: the run would be INVALID (paid already) yet the answer is the revision.
    const stalePaid = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 1 }, ifRev: { order: 1 } },
      headers: bearer(devKey),
    });
    expect([stalePaid.status, stalePaid.body.error.code]).toEqual([409, 'rev_mismatch']);
    const fresh = await svc.call('POST', apply('sales.payOrder'), {
      body: { parameters: { order: 2 }, ifRev: { order: 1 } },
      headers: bearer(devKey),
    });
    expect(fresh.body.data.validation.result).toBe('VALID');
  });

  it('creates objects and links from parameters', async () => {
    const created = await svc.call('POST', apply('sales.addCustomer'), {
      body: { parameters: { id: 'c1', name: 'Ada' } },
      headers: bearer(devKey),
    });
    expect(created.body.data.validation.result).toBe('VALID');
    expect((await getObject('sales.Customer', 'c1')).data).toMatchObject({ id: 'c1', name: 'Ada' });
    const linked = await svc.call('POST', apply('sales.assignOrder'), {
      body: { parameters: { order: 2, customer: 'c1' }, options: { returnEdits: 'ALL' } },
      headers: bearer(devKey),
    });
    expect(linked.body.data.edits).toMatchObject({
      addedLinksCount: 1,
      edits: [{ type: 'addLink', linkType: 'order-customer', source: 2, target: 'c1' }],
    });
    const rows = await svc.database.db.selectFrom('object_links').select(['source_key', 'target_key']).execute();
    expect(rows).toEqual([{ source_key: '2', target_key: 'c1' }]);
  });
});

describe('applyBatch', () => {
  it('is atomic: one invalid request and nothing is written', async () => {
    const requests = [
      { parameters: { id: 'b1', name: 'One' } },
      { parameters: { id: 'b2', name: 'Two' } },
      { parameters: { id: 'b3', name: 'Three', tier: -5 } },
    ];
    const res = await svc.call('POST', `${O}/actions/sales.addCustomer/applyBatch`, { body: { requests }, headers: bearer(devKey) });
    expect([res.status, res.body.error.code, res.body.error.details.index]).toEqual([422, 'action_invalid', 2]);
    expect(res.body.error.details.validation.result).toBe('INVALID');
    for (const id of ['b1', 'b2']) expect((await getObject('sales.Customer', id)).error.code).toBe('object_not_found');
    // A failing write (b1 twice) rolls back the others too.
    const dup = await svc.call('POST', `${O}/actions/sales.addCustomer/applyBatch`, {
      body: { requests: [requests[0], requests[1], requests[0]] },
      headers: bearer(devKey),
    });
    expect([dup.status, dup.body.error.code]).toEqual([409, 'conflict']);
    expect((await getObject('sales.Customer', 'b2')).error.code).toBe('object_not_found');
  });

  it('executes every request in one operation; at most 20', async () => {
    const res = await svc.call('POST', `${O}/actions/sales.addCustomer/applyBatch`, {
      body: {
        requests: [{ parameters: { id: 'b1', name: 'One' } }, { parameters: { id: 'b2', name: 'Two', tier: 2 } }],
        options: { returnEdits: 'ALL' },
      },
      headers: bearer(devKey),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.edits.addedObjectCount).toBe(2);
    const edits = await history('sales.Customer');
    expect(edits.body.data.data.filter((e: { operationId: string }) => e.operationId === res.body.data.operationId)).toHaveLength(2);
    const tooMany = await svc.call('POST', `${O}/actions/sales.addCustomer/applyBatch`, {
      body: { requests: Array.from({ length: 21 }, (_, i) => ({ parameters: { id: `m${i}`, name: 'M' } })) },
      headers: bearer(devKey),
    });
    expect([tooMany.status, tooMany.body.error.code]).toEqual([400, 'invalid_payload']);
  });
});

describe('concurrent actions on one object', () => {
  it('keep a consistent before and after: each edit starts where the previous one ended', async () => {
    await createOrders(3);
    const notes = Array.from({ length: 8 }, (_, i) => `note-${i}`);
    const results = await Promise.all(
      notes.map((note) => svc.call('POST', apply('sales.setNote'), { body: { parameters: { order: 3, note } }, headers: bearer(devKey) })),
    );
    expect(results.map((r) => [r.status, r.body.data?.validation.result])).toEqual(notes.map(() => [200, 'VALID']));
    const edits = (await history('sales.Order', { filters: { primaryKey: 3 } })).body.data.data.reverse();
    expect(edits).toHaveLength(notes.length + 1);
    for (let i = 1; i < edits.length; i++) {
      expect(edits[i].edit.before).toEqual(edits[i - 1].edit.after);
      expect(edits[i].edit.after.__rev).toBe(edits[i].edit.before.__rev + 1);
    }
    expect(new Set(edits.slice(1).map((e: { edit: { after: { note: string } } }) => e.edit.after.note))).toEqual(new Set(notes));
  });

  it('see the object as locked: of parallel payments of one order exactly one runs', async () => {
    await createOrders(4);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        svc.call('POST', apply('sales.payOrder'), { body: { parameters: { order: 4 } }, headers: bearer(devKey) }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(results.filter((r) => r.body.data.validation.result === 'VALID')).toHaveLength(1);
    expect((await getObject('sales.Order', 4)).data.__rev).toBe(2);
  });
});

describe('edits history', () => {
  it('pages newest first with a token', async () => {
    const first = await history('sales.Order', { pageSize: 2 });
    expect(first.body.data.data).toHaveLength(2);
    const second = await history('sales.Order', { pageSize: 2, pageToken: first.body.data.nextPageToken });
    expect(second.body.data.data[0].timestamp <= first.body.data.data[1].timestamp).toBe(true);
    expect(second.body.data.data[0]).not.toEqual(first.body.data.data[1]);
    const hidden = await svc.call('POST', `${O}/objectTypes/sales.Customer/editsHistory`, { body: {}, headers: bearer(memberKey) });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'object_type_not_found']);
    const bad = await history('sales.Order', { pageToken: 'nonsense' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_payload']);
  });
});
