import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { release } from '../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Objects over real HTTP: a developer loads data (import and direct edits), then lists, searches
// and aggregates it; members read only what their apps list and never write directly.

let svc: TestService;
let devKey: string;
let memberKey: string;
const O = '/api/v1/ontologies/cell-acme';
const CUSTOMERS = Array.from({ length: 2500 }, (_, i) => ({ id: `c${String(i).padStart(4, '0')}`, name: `Customer ${i}`, tier: i % 3 }));

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(devKey) });
  expect(defined.status).toBe(200);
  const imported = await svc.call('POST', `${O}/objects/sales.Customer/import`, { body: CUSTOMERS, headers: bearer(devKey) });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  expect(imported.body.data).toMatchObject({ created: 2500, modified: 0 });
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const dev = () => bearer(devKey);

describe('listing', () => {
  it('pages through every object in primary-key order, 1000 at a time by default', async () => {
    const keys: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const res = await svc.call('GET', `${O}/objects/sales.Customer?select=name${token ? `&pageToken=${token}` : ''}`, { headers: dev() });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.totalCount).toBe(2500);
      keys.push(...res.body.data.data.map((o: { id: string }) => o.id));
      token = res.body.data.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(keys).toEqual(CUSTOMERS.map((c) => c.id));
  });

  it('orders by properties.x:desc, then the primary key', async () => {
    const res = await svc.call('GET', `${O}/objects/sales.Customer?pageSize=4&orderBy=properties.tier:desc`, { headers: dev() });
    expect(res.body.data.data.map((o: { id: string; tier: number }) => [o.tier, o.id])).toEqual([
      [2, 'c0002'],
      [2, 'c0005'],
      [2, 'c0008'],
      [2, 'c0011'],
    ]);
  });

  it('refuses a page token of another query or type, and a malformed orderBy', async () => {
    const first = await svc.call('GET', `${O}/objects/sales.Customer?pageSize=2`, { headers: dev() });
    const token = first.body.data.nextPageToken as string;
    for (const path of [
      `${O}/objects/sales.Order?pageToken=${token}`,
      `${O}/objects/sales.Customer?pageSize=2&orderBy=properties.tier&pageToken=${token}`,
    ]) {
      const res = await svc.call('GET', path, { headers: dev() });
      expect([res.status, res.body.error.code, res.body.error.details.errorName], path).toEqual([400, 'query_invalid', 'InvalidPageToken']);
    }
    const forged = Buffer.from(JSON.stringify({ q: 'x', o: 0 })).toString('base64url');
    expect(
      (await svc.call('GET', `${O}/objects/sales.Customer?pageToken=${forged}`, { headers: dev() })).body.error.details.errorName,
    ).toBe('InvalidPageToken');
    const bad = await svc.call('GET', `${O}/objects/sales.Customer?orderBy=tier`, { headers: dev() });
    expect([bad.status, bad.body.error.details.errorName]).toEqual([400, 'InvalidOrderBy']);
  });
});

describe('search and aggregate', () => {
  it('searches with a nested where clause and orderBy', async () => {
    const res = await svc.call('POST', `${O}/objects/sales.Customer/search`, {
      body: {
        where: {
          type: 'and',
          value: [
            { type: 'eq', field: 'tier', value: 1 },
            { type: 'not', value: { type: 'startsWith', field: 'id', value: 'c00' } },
            {
              type: 'or',
              value: [
                { type: 'lt', field: 'id', value: 'c0110' },
                { type: 'in', field: 'name', value: ['Customer 2497'] },
              ],
            },
          ],
        },
        orderBy: { fields: [{ field: 'id', direction: 'desc' }] },
        select: ['tier'],
      },
      headers: dev(),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.data.map((o: { id: string }) => o.id)).toEqual(['c2497', 'c0109', 'c0106', 'c0103', 'c0100']);
    expect(res.body.data.data[0]).toEqual({
      __apiName: 'sales.Customer',
      __primaryKey: 'c2497',
      __rid: expect.any(String),
      __rev: 1,
      id: 'c2497',
      tier: 1,
    });
  });

  it('answers a where clause the type cannot take with 400 query_invalid and a Foundry-like errorName', async () => {
    const cases = [
      [{ where: { type: 'eq', field: 'color', value: 1 } }, 'PropertiesNotFound'],
      [{ where: { type: 'startsWith', field: 'tier', value: '1' } }, 'PropertiesNotFilterable'],
      [{ where: { type: 'eq', field: 'tier', value: 'one' } }, 'InvalidPropertyValue'],
      [{ orderBy: { fields: [{ field: 'tier' }, { field: 'tier', direction: 'desc' }] } }, 'DuplicateOrderBy'],
    ] as const;
    for (const [body, errorName] of cases) {
      const res = await svc.call('POST', `${O}/objects/sales.Customer/search`, { body, headers: dev() });
      expect([res.status, res.body.error.code, res.body.error.details.errorName], JSON.stringify(body)).toEqual([
        400,
        'query_invalid',
        errorName,
      ]);
    }
    // Deeper than and/or/not three levels: refused by the schema, with the path.
    const deep = {
      type: 'not',
      value: { type: 'not', value: { type: 'not', value: { type: 'not', value: { type: 'isNull', field: 'id', value: true } } } },
    };
    const res = await svc.call('POST', `${O}/objects/sales.Customer/search`, { body: { where: deep }, headers: dev() });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_payload']);
  });

  it('aggregates with exact and range groups', async () => {
    const res = await svc.call('POST', `${O}/objects/sales.Customer/aggregate`, {
      body: {
        aggregation: [{ type: 'count' }, { type: 'max', field: 'id', name: 'last' }],
        groupBy: [{ type: 'exact', field: 'tier' }],
      },
      headers: dev(),
    });
    expect(res.body.data).toEqual({
      excludedItems: 0,
      accuracy: 'ACCURATE',
      data: [
        {
          group: { tier: 0 },
          metrics: [
            { name: 'count', value: 834 },
            { name: 'last', value: 'c2499' },
          ],
        },
        {
          group: { tier: 1 },
          metrics: [
            { name: 'count', value: 833 },
            { name: 'last', value: 'c2497' },
          ],
        },
        {
          group: { tier: 2 },
          metrics: [
            { name: 'count', value: 833 },
            { name: 'last', value: 'c2498' },
          ],
        },
      ],
    });
    const ranges = await svc.call('POST', `${O}/objects/sales.Customer/aggregate`, {
      body: {
        aggregation: [{ type: 'avg', field: 'tier' }],
        groupBy: [{ type: 'ranges', field: 'tier', ranges: [{ endValue: 1 }, { startValue: 1 }] }],
      },
      headers: dev(),
    });
    expect(ranges.body.data.data).toEqual([
      { group: { tier: { endValue: 1 } }, metrics: [{ name: 'avg_tier', value: 0 }] },
      { group: { tier: { startValue: 1 } }, metrics: [{ name: 'avg_tier', value: 1.5 }] },
    ]);
    const tooMany = await svc.call('POST', `${O}/objects/sales.Customer/aggregate`, {
      body: { aggregation: [{ type: 'count' }], groupBy: [{ type: 'exact', field: 'id', maxGroupCount: 100 }] },
      headers: dev(),
    });
    expect([tooMany.status, tooMany.body.error.details.errorName]).toEqual([400, 'AggregationGroupCountExceededLimit']);
    const twice = await svc.call('POST', `${O}/objects/sales.Customer/aggregate`, {
      body: { aggregation: [{ type: 'count' }], groupBy: [{ type: 'ranges', field: 'tier', ranges: [{ endValue: 1 }, { endValue: 1 }] }] },
      headers: dev(),
    });
    expect([twice.status, twice.body.error.details.problems[0].path]).toEqual([400, 'groupBy[0].ranges[1]']);
  });
});

describe('direct edits and imports', () => {
  it('edits objects and links in order, with ifRev', async () => {
    const res = await svc.call('POST', `${O}/edits`, {
      body: {
        edits: [
          { type: 'create', objectType: 'sales.Order', properties: { number: 1, amount: 9.5, placed: '2026-11-22' } },
          { type: 'addLink', linkType: 'order-customer', source: 1, target: 'c0001' },
          { type: 'modify', objectType: 'sales.Customer', primaryKey: 'c0001', properties: { name: 'Ada' }, ifRev: 1 },
        ],
      },
      headers: dev(),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(
      res.body.data.objects.map((o: { objectType: string; before: unknown; after: { __rev: number } }) => [
        o.objectType,
        o.before === null,
        o.after.__rev,
      ]),
    ).toEqual([
      ['sales.Customer', false, 2],
      ['sales.Order', true, 1],
    ]);
    const stale = await svc.call('POST', `${O}/edits`, {
      body: { edits: [{ type: 'modify', objectType: 'sales.Customer', primaryKey: 'c0001', properties: { name: 'Bob' }, ifRev: 1 }] },
      headers: dev(),
    });
    expect([stale.status, stale.body.error.code, stale.body.error.details.currentRev]).toEqual([409, 'rev_mismatch', 2]);
  });

  it('imports: create refuses existing objects, upsert modifies them; duplicates are refused with their path', async () => {
    const again = await svc.call('POST', `${O}/objects/sales.Customer/import`, { body: [{ id: 'c0000' }], headers: dev() });
    expect([again.status, again.body.error.code]).toEqual([409, 'conflict']);
    const upsert = await svc.call('POST', `${O}/objects/sales.Customer/import?mode=upsert`, {
      body: [
        { id: 'c0000', tier: 2 },
        { id: 'new-1', name: 'New' },
      ],
      headers: dev(),
    });
    expect(upsert.body.data).toMatchObject({ created: 1, modified: 1 });
    const got = await svc.call('GET', `${O}/objects/sales.Customer/c0000`, { headers: dev() });
    expect(got.body.data).toMatchObject({ name: 'Customer 0', tier: 2, __rev: 2 });
    const dup = await svc.call('POST', `${O}/objects/sales.Customer/import`, { body: [{ id: 'd1' }, { id: 'd1' }], headers: dev() });
    expect([dup.status, dup.body.error.code, dup.body.error.details.problems[0].path]).toEqual([400, 'invalid_payload', '[1].id']);
  });

  it('records action/data.edit and action/data.import in the log of the app a request names', async () => {
    await release(svc, devKey, { namespace: 'cell-acme', slug: 'loader', version: '1.0.0' });
    const headers = { ...dev(), 'x-svc-app': 'cell-acme/loader' };
    const edit = await svc.call('POST', `${O}/edits`, {
      body: { edits: [{ type: 'modify', objectType: 'sales.Customer', primaryKey: 'c0002', properties: { name: 'Cy' } }] },
      headers,
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    const load = await svc.call('POST', `${O}/objects/sales.Customer/import`, {
      body: Array.from({ length: 30 }, (_, i) => ({ id: `load-${i}` })),
      headers,
    });
    expect(load.status, JSON.stringify(load.body)).toBe(200);
    // Without a named app nothing is recorded.
    await svc.call('POST', `${O}/objects/sales.Customer/import`, { body: [{ id: 'unnamed' }], headers: dev() });
    const records = await svc.database.db
      .selectFrom('app_log_events as e')
      .innerJoin('apps as a', 'a.id', 'e.app_id')
      .select(['a.slug', 'e.name', 'e.data'])
      .where('e.kind', '=', 'action')
      .where('e.name', 'like', 'data.%')
      .orderBy('e.at')
      .execute();
    expect(records.map((r) => [r.slug, r.name])).toEqual([
      ['loader', 'data.edit'],
      ['loader', 'data.import'],
    ]);
    expect(records[0]!.data).toMatchObject({
      operationId: edit.body.data.operationId,
      modified: 1,
      objects: [{ objectType: 'sales.Customer', primaryKey: 'c0002', before: { name: 'Customer 2' }, after: { name: 'Cy' } }],
      summary: 'Direct edit of sales.Customer: modified 1',
    });
    // An import of more than 20 objects is counted, not listed.
    expect(records[1]!.data).toMatchObject({
      operationId: load.body.data.operationId,
      created: 30,
      summary: 'Import of sales.Customer: created 30',
    });
    expect(records[1]!.data).not.toHaveProperty('objects');
  });

  it('members never edit directly: 403 where they can read, 404 where they cannot', async () => {
    const key = await svc.call('POST', `${O}/edits`, {
      body: { edits: [{ type: 'delete', objectType: 'sales.Customer', primaryKey: 'c0000' }] },
      headers: bearer(memberKey),
    });
    expect([key.status, key.body.error.code]).toEqual([403, 'forbidden']);
    const cookie = await signIn(svc, 'mo');
    const hidden = await svc.call('POST', `${O}/edits`, {
      body: { edits: [{ type: 'delete', objectType: 'sales.Customer', primaryKey: 'c0000' }] },
      headers: browser(cookie, svc),
    });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'ontology_not_found']);
    await release(svc, devKey, {
      namespace: 'cell-acme',
      slug: 'crm',
      version: '1.0.0',
      manifest: { semantic: { types: ['sales.Customer'] } },
    });
    const visible = await svc.call('POST', `${O}/edits`, {
      body: { edits: [{ type: 'delete', objectType: 'sales.Customer', primaryKey: 'c0000' }] },
      headers: browser(cookie, svc),
    });
    expect([visible.status, visible.body.error.code]).toEqual([403, 'forbidden']);
    expect(visible.body.error.message).toMatch(/Only developers of cell-acme may edit objects directly/);
    // The member reads the listed type.
    const read = await svc.call('POST', `${O}/objects/sales.Customer/search`, {
      body: { where: { type: 'eq', field: 'id', value: 'c0000' } },
      headers: bearer(memberKey),
    });
    expect(read.body.data.data.map((o: { id: string }) => o.id)).toEqual(['c0000']);
  });
});
