import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STREAM_LIMITS } from '../../../schemas/streams.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Data streams over HTTP (issue 31): a stream's schema, its bindings to object types, pushes that
// are checked and written through the data layer's one writer (visible in object search), the
// stream_in_use rule, who may push (developers, and app tickets for the streams their manifest
// lists), companies kept apart, the limits at their bounds and hostile records.

const A = 'cell-acme';
const BASE = `/api/v1/developer/streams/${A}`;
let svc: TestService;
let dana: string;
let mo: string;
let gus: string;

const ORDER_FIELDS = [
  { name: 'number', type: 'long', required: true },
  { name: 'customer', type: 'string', required: true },
  { name: 'customerName', type: 'string' },
  { name: 'amount', type: 'double' },
  { name: 'paid', type: 'boolean' },
  { name: 'placed', type: 'date' },
  { name: 'at', type: 'timestamp' },
  { name: 'tier', type: 'integer' },
];
const ORDER_MAPPING = { number: 'number', amount: 'amount', paid: 'paid', placed: 'placed', at: 'at', note: 'customer' };

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  [dana, mo, gus] = (await Promise.all(['dana', 'mo', 'gus'].map((login) => passwordKey(svc, login)))) as [string, string, string];
  for (const [cell, key] of [
    [A, dana],
    ['cell-globex', gus],
  ] as const) {
    const defined = await svc.call('POST', `/api/v1/developer/semantic/${cell}/types`, { body: SALES, headers: bearer(key) });
    expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  }
}, 60_000);
afterAll(() => svc?.close());
beforeEach(() => resetRateLimits(svc));

const as = (key: string) => ({ headers: bearer(key) });

async function createStream(name: string, fields: object[] = ORDER_FIELDS, key = dana, base = BASE) {
  const res = await svc.call('POST', base, { body: { name, fields }, ...as(key) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

async function bind(stream: string, objectType: string, mapping: object) {
  const res = await svc.call('PUT', `${BASE}/${stream}/bindings/${objectType}`, { body: { mapping }, ...as(dana) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const push = (stream: string, records: unknown[], key = dana, headers: Record<string, string> = {}) =>
  svc.call('POST', `${BASE}/${stream}/records`, { body: { records }, headers: { ...bearer(key), ...headers } });

async function search(objectType: string, key = dana) {
  const res = await svc.call('POST', `/api/v1/ontologies/${A}/objects/${objectType}/search`, { body: {}, ...as(key) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.data as Record<string, unknown>[];
}

const order = (number: number, more: object = {}) => ({ number, customer: `c-${number}`, amount: number * 1.5, ...more });

describe('a stream as a data source', () => {
  it('is created, bound to two types, pushed into (objects found by search), refused while bound, then deleted with its records', async () => {
    const created = await createStream('orders');
    expect(created).toMatchObject({ name: 'orders', bindings: [], lastSequence: 0, lastPushedAt: null });
    expect(created.fields[2]).toEqual({ name: 'customerName', type: 'string', required: false });

    await bind('orders', 'sales.Order', ORDER_MAPPING);
    await bind('orders', 'sales.Customer', { id: 'customer', name: 'customerName', tier: 'tier' });

    const res = await push('orders', [
      order(1, { paid: true, placed: '2026-11-28', at: '2026-11-28T10:00:00Z', customerName: 'Ann', tier: 2 }),
      order(2, { customerName: 'Bob' }),
      // The same customer again: one object, the last record wins.
      order(3, { customer: 'c-1', customerName: 'Ann B.' }),
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      accepted: 3,
      firstSequence: 1,
      lastSequence: 3,
      objectTypes: [
        { objectType: 'sales.Customer', objectsWritten: 2 },
        { objectType: 'sales.Order', objectsWritten: 3 },
      ],
    });

    const orders = await search('sales.Order');
    expect(orders.map((o) => o.number).sort()).toEqual([1, 2, 3]);
    expect(orders.find((o) => o.number === 1)).toMatchObject({ amount: 1.5, paid: true, placed: '2026-11-28', note: 'c-1' });
    const customers = await search('sales.Customer');
    expect(customers.map((c) => [c.id, c.name]).sort()).toEqual([
      ['c-1', 'Ann B.'],
      ['c-2', 'Bob'],
    ]);

    const records = await svc.call('GET', `${BASE}/orders/records?after=1&pageSize=1`, as(dana));
    expect(records.status).toBe(200);
    expect(records.body.data.records.map((r: { sequence: number }) => r.sequence)).toEqual([2]);
    expect(records.body.data.records[0].record).toEqual(order(2, { customerName: 'Bob' }));
    expect(records.body.data.nextAfter).toBe(2);

    const inUse = await svc.call('DELETE', `${BASE}/orders`, as(dana));
    expect(inUse.status).toBe(409);
    expect(inUse.body.error.code).toBe('stream_in_use');
    expect(inUse.body.error.details.objectTypes).toEqual(['sales.Customer', 'sales.Order']);

    expect((await svc.call('DELETE', `${BASE}/orders/bindings/sales.Customer`, as(dana))).status).toBe(200);
    const stillUsed = await svc.call('DELETE', `${BASE}/orders`, as(dana));
    expect(stillUsed.status).toBe(409);
    expect(stillUsed.body.error.details.objectTypes).toEqual(['sales.Order']);
    const again = await svc.call('DELETE', `${BASE}/orders/bindings/sales.Customer`, as(dana));
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('stream_binding_not_found');
    expect((await svc.call('DELETE', `${BASE}/orders/bindings/sales.Order`, as(dana))).status).toBe(200);

    const { id } = await svc.database.db.selectFrom('data_streams').select('id').where('name', '=', 'orders').executeTakeFirstOrThrow();
    const deleted = await svc.call('DELETE', `${BASE}/orders`, as(dana));
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    const gone = await svc.call('GET', `${BASE}/orders`, as(dana));
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('stream_not_found');
    const kept = await svc.database.db.selectFrom('data_stream_records').select('seq').where('stream_id', '=', id).execute();
    expect(kept).toEqual([]);
    // The objects written stay: they are the types' now.
    expect((await search('sales.Order')).length).toBe(3);
  });

  it('writes nothing when one record is bad, names it by path, and writes nothing on a dry run', async () => {
    await createStream('atomic');
    await bind('atomic', 'sales.Order', ORDER_MAPPING);
    const bad = await push('atomic', [order(100), order(101, { amount: 'lots', extra: 1 }), { customer: 'c-x' }]);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_payload');
    expect(bad.body.error.details.problems.map((p: { path: string }) => p.path)).toEqual([
      'records[1].extra',
      'records[1].amount',
      'records[2].number',
    ]);
    const dry = await push('atomic', [order(102)], dana, { 'x-svc-dry-run': 'true' });
    expect(dry.status).toBe(202);
    expect(dry.body.data.plan).toMatchObject({ accepted: 1, objectTypes: [{ objectType: 'sales.Order', objectsWritten: 1 }] });
    const numbers = (await search('sales.Order')).map((o) => o.number);
    expect(numbers).not.toContain(100);
    expect(numbers).not.toContain(102);
    expect((await svc.call('GET', `${BASE}/atomic`, as(dana))).body.data.lastSequence).toBe(0);
  });

  it('checks a binding against the type and the stream', async () => {
    await createStream('checked', [
      { name: 'key', type: 'string' },
      { name: 'flag', type: 'boolean', required: true },
      { name: 'n', type: 'long', required: true },
    ]);
    const problem = async (objectType: string, mapping: object) => {
      const res = await svc.call('PUT', `${BASE}/checked/bindings/${objectType}`, { body: { mapping }, ...as(dana) });
      return [res.status, res.body.error.code, res.body.error.details?.problems?.[0]?.path ?? null];
    };
    expect(await problem('sales.Order', { number: 'key' })).toEqual([400, 'invalid_payload', 'mapping.number']);
    expect(await problem('sales.Order', { amount: 'n' })).toEqual([400, 'invalid_payload', 'mapping']);
    expect(await problem('sales.Order', { number: 'n', paid: 'nope' })).toEqual([400, 'invalid_payload', 'mapping.paid']);
    expect(await problem('sales.Order', { number: 'n', constructor: 'n' })).toEqual([400, 'invalid_payload', 'mapping.constructor']);
    // Not required: a record without it would name no object.
    expect(await problem('sales.Customer', { id: 'key' })).toEqual([400, 'invalid_payload', 'mapping.id']);
    expect(await problem('sales.Missing', { id: 'key' })).toEqual([404, 'object_type_not_found', null]);
    // Integer into long and string fits; a boolean into a string property fits too (written as text).
    await bind('checked', 'sales.Order', { number: 'n', note: 'flag' });
    const res = await push('checked', [{ n: 77, flag: true }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await search('sales.Order')).find((o) => o.number === 77)).toMatchObject({ note: 'true' });
  });

  it('names the record and field when a bound type refuses a value (its property retyped since the binding)', async () => {
    const gauge = (level: string) => ({
      types: [
        {
          apiName: 'iot.Gauge',
          primaryKey: 'id',
          properties: { id: { dataType: { type: 'string' } }, level: { dataType: { type: level } } },
        },
      ],
    });
    const define = (level: string) => svc.call('POST', `/api/v1/developer/semantic/${A}/types`, { body: gauge(level), ...as(dana) });
    expect((await define('string')).status).toBe(200);
    await createStream('gauges', [
      { name: 'gauge', type: 'string', required: true },
      { name: 'reading', type: 'string' },
    ]);
    await bind('gauges', 'iot.Gauge', { id: 'gauge', level: 'reading' });
    // No object holds a level yet: the property may change its type.
    expect((await define('integer')).status).toBe(200);
    const res = await push('gauges', [
      { gauge: 'g1', reading: '7' },
      { gauge: 'g2', reading: 'high' },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.details.problems).toEqual([
      { path: 'records[1].reading', code: 'InvalidPropertyValue', message: 'iot.Gauge: level must be a 32-bit integer.' },
    ]);
    expect(await search('iot.Gauge')).toEqual([]);
  });
});

describe('who may use streams', () => {
  it('admits a ticket only for the streams its manifest lists, never for reading or managing them', async () => {
    await createStream('sensor', [
      { name: 'number', type: 'long', required: true },
      { name: 'reading', type: 'double' },
    ]);
    await bind('sensor', 'sales.Order', { number: 'number', amount: 'reading' });
    await createStream('unlisted');
    await release(svc, dana, { namespace: A, slug: 'pusher', version: '1.0.0', manifest: { streams: ['sensor'] } });
    const page = await rawGet(`${svc.addresses.productionBase}/${A}/apps/pusher`, { cookie: await signIn(svc, 'mo') });
    const { ticket } = injected(page.text);

    const pushed = await push('sensor', [{ number: 501, reading: 20.5 }], ticket);
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    expect((await search('sales.Order')).find((o) => o.number === 501)).toMatchObject({ amount: 20.5 });
    const records = await svc.call('GET', `${BASE}/sensor/records`, as(dana));
    expect(records.body.data.records.at(-1).record).toEqual({ number: 501, reading: 20.5 });
    // The page's push is in its app's log, as the visitor's action.
    const logged = await svc.database.db
      .selectFrom('app_log_events as e')
      .innerJoin('apps as a', 'a.id', 'e.app_id')
      .innerJoin('accounts as p', 'p.id', 'e.account_id')
      .select(['e.kind', 'e.name', 'e.data', 'p.username'])
      .where('a.slug', '=', 'pusher')
      .where('e.kind', '=', 'action')
      .execute();
    expect(logged.map((e) => [e.kind, e.name, e.username])).toEqual([['action', 'data.stream', 'mo']]);
    expect(logged[0]!.data).toMatchObject({ stream: 'sensor', accepted: 1, summary: 'Push of 1 record to sensor: sales.Order 1' });

    const unlisted = await push('unlisted', [order(502)], ticket);
    expect(unlisted.status).toBe(404);
    expect(unlisted.body.error.code).toBe('stream_not_found');
    expect(unlisted.body.error.details.listed).toEqual(['sensor']);
    expect((await svc.call('GET', `${BASE}/sensor`, as(ticket))).status).toBe(403);
    expect((await svc.call('DELETE', `${BASE}/sensor`, as(ticket))).status).toBe(403);
  });

  it('refuses a member key with an explanation, and hides a company’s streams from another company (404)', async () => {
    await createStream('private');
    const member = await push('private', [order(600)], mo);
    expect(member.status).toBe(403);
    expect(member.body.error.code).toBe('forbidden');

    const other = [
      await svc.call('GET', `${BASE}/private`, as(gus)),
      await push('private', [order(601)], gus),
      await svc.call('DELETE', `${BASE}/private`, as(gus)),
      await svc.call('PUT', `${BASE}/private/bindings/sales.Order`, { body: { mapping: { number: 'number' } }, ...as(gus) }),
      await svc.call('GET', `${BASE}/private/records`, as(gus)),
    ];
    expect(other.map((r) => [r.status, r.body.error.code])).toEqual(Array(5).fill([404, 'stream_not_found']));
    const list = await svc.call('GET', BASE, as(gus));
    expect([list.status, list.body.error.code]).toEqual([404, 'organization_not_found']);

    // Globex's own stream of the same name is its own.
    await createStream('private', ORDER_FIELDS, gus, '/api/v1/developer/streams/cell-globex');
    const globex = await svc.call('GET', '/api/v1/developer/streams/cell-globex', as(gus));
    expect(globex.body.data.streams.map((s: { name: string }) => s.name)).toEqual(['private']);
    const acme = await svc.call('GET', BASE, as(dana));
    expect(acme.body.data.streams.map((s: { name: string }) => s.name)).toContain('private');
    expect((await svc.call('DELETE', `${BASE}/private`, as(dana))).status).toBe(200);
    expect((await svc.call('GET', '/api/v1/developer/streams/cell-globex/private', as(gus))).status).toBe(200);
  });
});

describe('limits and hostile input', () => {
  it('takes exactly the record count, string length and integer ranges at their bounds', async () => {
    await createStream('bounds', [
      { name: 'number', type: 'long', required: true },
      { name: 'text', type: 'string' },
      { name: 'small', type: 'integer' },
    ]);
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ number: i }));
    expect((await push('bounds', many(STREAM_LIMITS.recordsPerPush))).status).toBe(200);
    const over = await push('bounds', many(STREAM_LIMITS.recordsPerPush + 1));
    expect([over.status, over.body.error.details.problems[0].path]).toEqual([400, 'records']);

    const longest = 'x'.repeat(STREAM_LIMITS.stringChars);
    expect((await push('bounds', [{ number: 1, text: longest, small: 2 ** 31 - 1 }])).status).toBe(200);
    expect((await push('bounds', [{ number: 1, small: -(2 ** 31) + 1 }])).status).toBe(200);
    const tooLong = await push('bounds', [{ number: 1, text: `${longest}x` }, { number: 2, small: 2 ** 31 }, { number: 2 ** 53 }]);
    expect(tooLong.body.error.details.problems.map((p: { path: string }) => p.path)).toEqual([
      'records[0].text',
      'records[1].small',
      'records[2].number',
    ]);

    // A body of exactly the push bound is read; one byte more is not.
    const records: { number: number; text: string }[] = [];
    const size = () => Buffer.byteLength(JSON.stringify({ records }));
    while (size() < STREAM_LIMITS.pushBodyBytes - STREAM_LIMITS.stringChars)
      records.push({ number: records.length, text: 'y'.repeat(60_000) });
    records.push({ number: records.length, text: '' });
    records.at(-1)!.text = 'y'.repeat(STREAM_LIMITS.pushBodyBytes - size());
    const send = (body: string) =>
      svc.call('POST', `${BASE}/bounds/records`, {
        rawBody: Buffer.from(body),
        headers: { ...bearer(dana), 'content-type': 'application/json' },
      });
    const exact = JSON.stringify({ records });
    expect(Buffer.byteLength(exact)).toBe(STREAM_LIMITS.pushBodyBytes);
    expect((await send(exact)).status).toBe(200);
    const tooLarge = await send(`${exact} `);
    expect([tooLarge.status, tooLarge.body.error.code]).toEqual([413, 'payload_too_large']);
  });

  it('feeds at most the bound number of object types from one stream', async () => {
    const types = Array.from({ length: STREAM_LIMITS.bindingsPerStream + 1 }, (_, i) => ({
      apiName: `bulk.T${i}`,
      primaryKey: 'id',
      properties: { id: { dataType: { type: 'string' } } },
    }));
    expect((await svc.call('POST', `/api/v1/developer/semantic/${A}/types`, { body: { types }, ...as(dana) })).status).toBe(200);
    await createStream('fan-out', [{ name: 'id', type: 'string', required: true }]);
    for (const type of types.slice(0, -1)) await bind('fan-out', type.apiName, { id: 'id' });
    // Changing the mapping of a bound type is no new binding.
    await bind('fan-out', 'bulk.T0', { id: 'id' });
    const over = await svc.call('PUT', `${BASE}/fan-out/bindings/${types.at(-1)!.apiName}`, {
      body: { mapping: { id: 'id' } },
      ...as(dana),
    });
    expect([over.status, over.body.error.code, over.body.error.details.limit]).toEqual([409, 'conflict', STREAM_LIMITS.bindingsPerStream]);
    const pushed = await push('fan-out', [{ id: 'x' }]);
    expect(pushed.body.data.objectTypes.length).toBe(STREAM_LIMITS.bindingsPerStream);
  });

  it('keeps exactly the newest records past the retention bound, in sequence order', async () => {
    await createStream('retained', [{ name: 'n', type: 'long', required: true }]);
    const batch = STREAM_LIMITS.recordsPerPush;
    const pushes = STREAM_LIMITS.retainedRecords / batch + 1;
    for (let p = 0; p < pushes; p++) {
      const res = await push(
        'retained',
        Array.from({ length: batch }, (_, i) => ({ n: p * batch + i + 1 })),
      );
      expect(res.status).toBe(200);
    }
    const { id } = await svc.database.db.selectFrom('data_streams').select('id').where('name', '=', 'retained').executeTakeFirstOrThrow();
    const kept = await svc.database.db
      .selectFrom('data_stream_records')
      .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('seq').as('first'), eb.fn.max('seq').as('last')])
      .where('stream_id', '=', id)
      .executeTakeFirstOrThrow();
    expect([Number(kept.count), Number(kept.first), Number(kept.last)]).toEqual([STREAM_LIMITS.retainedRecords, batch + 1, pushes * batch]);
    const first = await svc.call('GET', `${BASE}/retained/records?pageSize=2`, as(dana));
    expect(first.body.data.records.map((r: { record: { n: number } }) => r.record.n)).toEqual([batch + 1, batch + 2]);
  });

  it('refuses fields and schemas past their bounds', async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, type: 'string' }));
    await createStream('widest', fields(STREAM_LIMITS.fields));
    const wider = await svc.call('POST', BASE, { body: { name: 'wider', fields: fields(STREAM_LIMITS.fields + 1) }, ...as(dana) });
    expect([wider.status, wider.body.error.details.problems[0].path]).toEqual([400, 'fields']);
    const twice = await svc.call('POST', BASE, { body: { name: 'twice', fields: [...fields(1), ...fields(1)] }, ...as(dana) });
    expect([twice.status, twice.body.error.details.problems[0].path]).toEqual([400, 'fields[1].name']);
    const unknown = await svc.call('POST', BASE, { body: { name: 'typo', fields: fields(1), feilds: [] }, ...as(dana) });
    expect([unknown.status, unknown.body.error.details.problems[0].path]).toEqual([400, 'feilds']);
    const taken = await svc.call('POST', BASE, { body: { name: 'widest', fields: fields(1) }, ...as(dana) });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'stream_name_exists']);
  });

  it('answers hostile records with 400 and their path, never a 5xx', async () => {
    await createStream('hostile', [
      { name: 'number', type: 'long', required: true },
      { name: 'text', type: 'string' },
    ]);
    const deep = `${'['.repeat(100_000)}"x"${']'.repeat(100_000)}`;
    const cases: [string, string][] = [
      [JSON.stringify({ records: [{ number: 1, text: 'a\u0000b' }] }), 'records[0].text'],
      ['{"records":[{"number":1,"__proto__":{"polluted":true}}]}', 'records[0].__proto__'],
      [JSON.stringify({ records: [{ number: 1, constructor: 'x' }] }), 'records[0].constructor'],
      [JSON.stringify({ records: [{ number: 1, text: { nested: true } }] }), 'records[0].text'],
      [`{"records":[{"number":1,"text":${deep}}]}`, ''],
      [JSON.stringify({ records: [7] }), 'records[0]'],
      [JSON.stringify({ records: Array(200_000).fill(0) }), ''],
      [JSON.stringify([{ number: 1 }]), ''],
    ];
    for (const [body, path] of cases) {
      const res = await svc.call('POST', `${BASE}/hostile/records`, {
        rawBody: Buffer.from(body),
        headers: { ...bearer(dana), 'content-type': 'application/json' },
      });
      expect(res.status, `${body.slice(0, 80)}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      if (path) expect(res.body.error.details.problems.map((p: { path: string }) => p.path)).toContain(path);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await svc.call('GET', `${BASE}/hostile`, as(dana))).body.data.lastSequence).toBe(0);
  });

  it('holds at most the bound number of streams per company', async () => {
    const G = '/api/v1/developer/streams/cell-globex';
    const held = (await svc.call('GET', G, as(gus))).body.data.streams.length;
    for (let i = held; i < STREAM_LIMITS.streamsPerCompany; i++) await createStream(`many-${i}`, [{ name: 'id', type: 'string' }], gus, G);
    const over = await svc.call('POST', G, { body: { name: 'one-more', fields: [{ name: 'id', type: 'string' }] }, ...as(gus) });
    expect([over.status, over.body.error.code]).toEqual([409, 'conflict']);
  });
});
