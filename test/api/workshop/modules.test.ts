import { EventSource } from 'eventsource';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findOntology } from '../../../domain/ontology/repository.ts';
import { writeEdits } from '../../../domain/ontology/write-edits.ts';
import { release } from '../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { ACTIONS } from '../../support/ontology-actions.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Application modules over real HTTP and PostgreSQL: definitions checked against the ontology,
// numbered versions, publishing, the one policy's roles, evaluation as the caller, and the
// auto-refresh stream fed by the change hub (through the `eventsource` client).

let svc: TestService;
let dev: string;
let mo: string;
let gus: string;
let moCookie: string;
let companyId: string;
let moId: string;
let danaId: string;
const BASE = '/api/v1/workshop/modules';
const sources: EventSource[] = [];

const openOrders = {
  id: 'open_orders',
  type: 'table',
  title: 'Open orders',
  objectSet: { objectType: 'sales.Order', where: { paid: false }, sort: ['number'], limit: 2 },
  columns: ['number', 'amount', 'paid'],
};
const DEFINITION = {
  title: 'Orders desk',
  variables: { min: { type: 'number', default: 0 } },
  pages: [
    {
      id: 'desk',
      title: 'Desk',
      autoRefresh: { enabled: true, intervalSeconds: 10 },
      widgets: [
        openOrders,
        { id: 'unpaid', type: 'metric', objectSet: { objectType: 'sales.Order', where: { paid: false } }, aggregation: { type: 'count' } },
        {
          id: 'by_paid',
          type: 'chart',
          objectSet: { objectType: 'sales.Order', where: { amount: { gte: '=input.min' } } },
          groupBy: 'paid',
          aggregation: { type: 'count' },
        },
        { id: 'one', type: 'objectView', objectType: 'sales.Order', primaryKey: 1 },
        { id: 'pay', type: 'form', action: 'sales.payOrder', defaults: { note: 'paid at the desk' } },
        { id: 'customers', type: 'table', objectSet: { objectType: 'sales.Customer' } },
        { id: 'help', type: 'markdown', text: '# Close orders' },
      ],
    },
    { id: 'still', title: 'Still', widgets: [{ id: 'note', type: 'markdown', text: 'no refresh' }] },
  ],
};

let seeded = 0;
async function createOrders(...numbers: number[]) {
  await svc.database.db.transaction().execute((trx) =>
    writeEdits(trx, {
      companyId,
      accountId: null,
      operationId: `seed-${++seeded}`,
      actionTypeRid: null,
      edits: numbers.map((number) => ({
        type: 'create' as const,
        objectType: 'sales.Order',
        properties: { number, paid: false, amount: number * 10 },
      })),
    }),
  );
}

async function create(body: object = {}, key = dev) {
  const res = await svc.call('POST', BASE, { body: { name: 'Orders desk', definition: DEFINITION, ...body }, headers: bearer(key) });
  return res;
}
async function published(body: object = {}): Promise<string> {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const rid = res.body.data.rid;
  expect((await svc.call('POST', `${BASE}/${rid}/versions/1/publish`, { headers: bearer(dev) })).status).toBe(200);
  return rid;
}
const evaluate = (rid: string, key: string, body: object = {}) =>
  svc.call('POST', `${BASE}/${rid}/evaluate`, { body: { page: 'desk', ...body }, headers: bearer(key) });
const widget = (res: { body: any }, id: string) => res.body.data.widgets.find((w: { id: string }) => w.id === id);

/** An EventSource on a page's auto-refresh, as the key's holder; its events in arrival order. */
function autoRefresh(rid: string, key: string, query = 'page=desk') {
  const events: { type: string; data: any; id: string }[] = [];
  const waiters: (() => void)[] = [];
  const source = new EventSource(`${svc.url}${BASE}/${rid}/autoRefresh?${query}`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...bearer(key) } }),
  });
  sources.push(source);
  for (const type of ['ready', 'refresh', 'reconnect', 'end']) {
    source.addEventListener(type, (e) => {
      events.push({ type, data: JSON.parse(e.data), id: e.lastEventId });
      for (const w of waiters.splice(0)) w();
    });
  }
  let read = 0;
  /** The next event not yet read. */
  const next = async () => {
    while (events.length <= read) await new Promise<void>((resolve) => waiters.push(resolve));
    return events[read++]!;
  };
  return { source, next };
}

beforeAll(async () => {
  svc = await startTestService();
  const { accounts } = await seedCompanies(svc);
  moId = accounts.mo;
  danaId = accounts.dana;
  dev = await passwordKey(svc, 'dana');
  mo = await passwordKey(svc, 'mo');
  gus = await passwordKey(svc, 'gus');
  moCookie = await signIn(svc, 'mo');
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) })).status).toBe(200);
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', { body: ACTIONS, headers: bearer(dev) })).status).toBe(
    200,
  );
  companyId = (await findOntology(svc.database.db, 'cell-acme'))!.companyId;
  // Members read orders and pay them through a bundle app; customers are not theirs to read.
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'desk',
    version: '1.0.0',
    manifest: { semantic: { types: ['sales.Order'], actions: ['sales.payOrder'] } },
  });
  await createOrders(1, 2, 3);
});
afterAll(async () => {
  for (const s of sources) s.close();
  await svc.close();
});
beforeEach(() => resetRateLimits(svc));

describe('module definitions', () => {
  it('serves the definition as JSON Schema', async () => {
    const res = await svc.call('GET', '/schemas/workshop/module/v1.json');
    expect(res.status).toBe(200);
    expect(res.body.$id).toBe(`${svc.addresses.baseUrl}/schemas/workshop/module/v1.json`);
    expect(res.body.properties.pages).toBeDefined();
    expect(res.body.additionalProperties).toBe(false);
  });

  it('refuses misspelled fields with their path, and intervals under 10 seconds', async () => {
    const misspelled = structuredClone(DEFINITION) as any;
    misspelled.pages[0].widgets[0].colums = ['number'];
    misspelled.pages[0].autoRefresh.intervalSeconds = 5;
    const res = await create({ definition: misspelled });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_payload');
    const paths = res.body.error.details.problems.map((p: { path: string }) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        expect.stringContaining('definition.pages[0].widgets[0]'),
        'definition.pages[0].autoRefresh.intervalSeconds',
      ]),
    );
    expect(JSON.stringify(res.body)).toContain('colums');
  });

  it('checks the definition against the company’s types and actions: 422 with each path', async () => {
    const wrong = structuredClone(DEFINITION) as any;
    wrong.pages[0].widgets[0].objectSet.where = { payed: false };
    wrong.pages[0].widgets[1].objectSet.objectType = 'sales.Missing';
    wrong.pages[0].widgets[4].action = 'sales.closeAll';
    wrong.pages[0].widgets[2].objectSet.where = { amount: { gte: '=input.max' } };
    const res = await create({ definition: wrong });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.code).toBe('definition_invalid');
    expect(res.body.error.details.problems.map((p: { path: string; code: string }) => [p.path, p.code])).toEqual([
      ['definition.pages[0].widgets[0].objectSet.where.payed', 'property_not_found'],
      ['definition.pages[0].widgets[1].objectSet.objectType', 'object_type_not_found'],
      ['definition.pages[0].widgets[2].objectSet.where.amount', 'unknown_variable'],
      ['definition.pages[0].widgets[4].action', 'action_type_not_found'],
    ]);
  });

  it('takes hostile keys and values without a 5xx', async () => {
    const hostile = structuredClone(DEFINITION) as any;
    hostile.variables = { constructor: { type: 'string' }, ['__proto__']: { type: 'string' } };
    hostile.pages[0].widgets[0].objectSet.where = { constructor: 'x\u0000' };
    const res = await create({ definition: hostile, name: 'x'.repeat(5_000) });
    expect(res.status).toBe(400);
  });
});

describe('modules as resources', () => {
  it('numbers each save, publishes a version, and serves members the published one only', async () => {
    const made = await create();
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const { rid } = made.body.data;
    expect(rid).toMatch(/^ri\.workshop\.svc\.module\./);
    expect(made.body.data).toMatchObject({ organization: 'cell-acme', role: 'owner', latestVersion: 1, publishedVersion: null });
    // A member sees the module (company access) but no version until one is published.
    expect((await evaluate(rid, mo)).body.error.code).toBe('workshop_version_not_found');
    const second = await svc.call('POST', `${BASE}/${rid}/versions`, {
      body: { definition: { ...DEFINITION, title: 'v2' } },
      headers: bearer(dev),
    });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body.data).toMatchObject({ version: 2, published: false });
    const pub = await svc.call('POST', `${BASE}/${rid}/versions/1/publish`, { headers: bearer(dev) });
    expect(pub.status).toBe(200);
    expect(pub.body.data).toMatchObject({ version: 1, published: true });
    const asMember = await svc.call('GET', `${BASE}/${rid}`, { headers: bearer(mo) });
    expect(asMember.body.data).toMatchObject({ role: 'viewer', publishedVersion: 1, latestVersion: null });
    expect(
      (await svc.call('GET', `${BASE}/${rid}/versions`, { headers: bearer(mo) })).body.data.data.map((v: { version: number }) => v.version),
    ).toEqual([1]);
    expect(
      (await svc.call('GET', `${BASE}/${rid}/versions`, { headers: bearer(dev) })).body.data.data.map(
        (v: { version: number }) => v.version,
      ),
    ).toEqual([2, 1]);
    expect((await svc.call('GET', `${BASE}/${rid}/versions/2`, { headers: bearer(mo) })).body.error.code).toBe(
      'workshop_version_not_found',
    );
    expect((await svc.call('GET', `${BASE}/${rid}/versions/2`, { headers: bearer(dev) })).body.data.definition.title).toBe('v2');
    expect((await svc.call('GET', `${BASE}/${rid}/versions/9`, { headers: bearer(dev) })).body.error.code).toBe(
      'workshop_version_not_found',
    );
    // Viewers neither save nor publish; another company's people do not see it at all.
    expect((await svc.call('POST', `${BASE}/${rid}/versions`, { body: { definition: DEFINITION }, headers: bearer(mo) })).status).toBe(403);
    expect((await svc.call('POST', `${BASE}/${rid}/versions/2/publish`, { headers: bearer(mo) })).status).toBe(403);
    const outsider = await svc.call('GET', `${BASE}/${rid}`, { headers: bearer(gus) });
    expect(outsider.status).toBe(404);
    expect(outsider.body.error.code).toBe('workshop_module_not_found');
    expect((await svc.call('GET', BASE, { headers: bearer(mo) })).body.data.data.map((m: { rid: string }) => m.rid)).toContain(rid);
    expect((await svc.call('GET', BASE, { headers: bearer(gus) })).body.data.data).toEqual([]);
  });

  it('a restricted module is the developers’ until shared; a share through the generic access model opens it', async () => {
    const rid = await published({ access: 'restricted' });
    expect((await svc.call('GET', `${BASE}/${rid}`, { headers: bearer(mo) })).status).toBe(404);
    const resource = await svc.call('GET', `/api/v1/filesystem/resources/${rid}`, { headers: bearer(dev) });
    expect(resource.body.data).toMatchObject({ role: 'owner', generalAccess: 'private' });
    const shared = await svc.call('POST', `/api/v1/filesystem/resources/${rid}/roles/add`, {
      body: { principal: moId, role: 'viewer' },
      headers: bearer(dev),
    });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    expect((await svc.call('GET', `${BASE}/${rid}`, { headers: bearer(mo) })).body.data.role).toBe('viewer');
  });

  it('a marking on the module hides it from people it does not clear (404) until they are cleared', async () => {
    const rid = await published();
    const call = (method: string, path: string, body: unknown) => svc.call(method, path, { body, headers: bearer(dev) });
    const category = await call('POST', '/api/v1/admin/markingCategories', { name: 'Desk secrecy', categoryType: 'CONJUNCTIVE' });
    expect(category.status, JSON.stringify(category.body)).toBe(201);
    const marking = await call('POST', '/api/v1/admin/markings', {
      categoryId: category.body.data.id,
      name: 'Desk only',
      initialRoleAssignments: [{ principalType: 'USER', principalId: danaId, role: 'ADMINISTER' }],
    });
    expect(marking.status, JSON.stringify(marking.body)).toBe(201);
    const marked = await call('POST', `/api/v1/filesystem/resources/${rid}/addMarkings`, { markingIds: [marking.body.data.id] });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    expect((await svc.call('GET', `${BASE}/${rid}`, { headers: bearer(dev) })).status).toBe(200);
    const hidden = await evaluate(rid, mo);
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'workshop_module_not_found']);
    const cleared = await call('POST', `/api/v1/admin/markings/${marking.body.data.id}/roleAssignments/add`, {
      roleAssignments: [{ principalType: 'USER', principalId: moId, role: 'USE' }],
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect((await evaluate(rid, mo)).status).toBe(200);
  });

  it('members do not create modules; only Owners delete, and a deleted module is gone with its grants', async () => {
    expect((await create({}, mo)).status).toBe(403);
    const rid = await published();
    expect((await svc.call('DELETE', `${BASE}/${rid}`, { headers: bearer(mo) })).status).toBe(403);
    const dry = await svc.call('DELETE', `${BASE}/${rid}`, { headers: { ...bearer(dev), 'x-svc-dry-run': 'true' } });
    expect(dry.status).toBe(202);
    expect((await svc.call('GET', `${BASE}/${rid}`, { headers: bearer(dev) })).status).toBe(200);
    expect((await svc.call('DELETE', `${BASE}/${rid}`, { headers: bearer(dev) })).status).toBe(200);
    expect((await svc.call('GET', `${BASE}/${rid}`, { headers: bearer(dev) })).body.error.code).toBe('workshop_module_not_found');
    const grants = await svc.database.db.selectFrom('resource_grants').select('rid').where('rid', '=', rid).execute();
    expect(grants).toEqual([]);
  });
});

describe('evaluate', () => {
  it('computes every widget as the caller: tables page, metrics and charts aggregate, forms carry the action', async () => {
    const rid = await published();
    const first = await evaluate(rid, mo);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ rid, version: 1, page: { id: 'desk', autoRefresh: { enabled: true, intervalSeconds: 10 } } });
    const table = widget(first, 'open_orders');
    expect(table.objects.map((o: { number: number }) => o.number)).toEqual([1, 2]);
    expect(
      Object.keys(table.objects[0])
        .filter((k) => !k.startsWith('__'))
        .sort(),
    ).toEqual(['amount', 'number', 'paid']);
    expect(table.totalCount).toBeGreaterThanOrEqual(3);
    const next = await evaluate(rid, mo, { pageTokens: { open_orders: table.nextPageToken } });
    expect(widget(next, 'open_orders').objects[0].number).toBe(3);
    expect(widget(first, 'unpaid').value).toBe(table.totalCount);
    expect(widget(first, 'by_paid')).toMatchObject({ chart: 'bar', groups: [{ key: false, value: table.totalCount }] });
    expect(widget(first, 'one').object).toMatchObject({ __primaryKey: 1, number: 1 });
    expect(widget(first, 'pay')).toMatchObject({
      action: { apiName: 'sales.payOrder', parameters: { order: expect.any(Object) } },
      defaults: { note: 'paid at the desk' },
      inputs: { order: 'number', note: 'text' },
    });
    expect(widget(first, 'help').text).toBe('# Close orders');
    // Customers are not the member's to read: the widget says so, and holds no objects.
    expect(widget(first, 'customers')).toEqual({
      id: 'customers',
      type: 'table',
      error: expect.objectContaining({ code: 'object_type_not_found' }),
    });
    // The developer reads customers (there are none).
    expect(widget(await evaluate(rid, dev), 'customers').objects).toEqual([]);
  });

  it('applies variables, refuses undeclared ones with their path and unknown pages with 404', async () => {
    const rid = await published();
    const high = await evaluate(rid, mo, { variables: { min: 25 } });
    expect(widget(high, 'by_paid').groups).toEqual([{ key: false, value: 1 }]);
    const bad = await evaluate(rid, mo, { variables: { max: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.problems[0].path).toBe('variables.max');
    expect((await evaluate(rid, mo, { page: 'nope' })).body.error.code).toBe('workshop_page_not_found');
  });
});

describe('auto-refresh', () => {
  it('ready, then one refresh naming the changed type when a member’s action commits', async () => {
    const rid = await published();
    const stream = autoRefresh(rid, mo);
    const ready = await stream.next();
    expect(ready.type).toBe('ready');
    expect(ready.data).toMatchObject({ page: 'desk', version: 1, intervalSeconds: 10, objectTypes: ['sales.Order'] });
    const paid = await svc.call('POST', '/api/v1/ontologies/cell-acme/actions/sales.payOrder/apply', {
      body: { parameters: { order: 1 } },
      headers: bearer(mo),
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const refresh = await stream.next();
    expect(refresh.type).toBe('refresh');
    expect(refresh.data.objectTypes).toEqual(['sales.Order']);
    expect(refresh.data.seq).toBeGreaterThan(ready.data.seq);
    expect(refresh.id).toBe(String(refresh.data.seq));
    expect(Object.keys(refresh.data).sort()).toEqual(['objectTypes', 'seq']);
    expect(widget(await evaluate(rid, mo), 'open_orders').objects.map((o: { number: number }) => o.number)).not.toContain(1);
    stream.source.close();
  });

  it('resumes with after: changes made while disconnected arrive as one refresh', async () => {
    const rid = await published();
    const first = autoRefresh(rid, dev);
    const ready = await first.next();
    first.source.close();
    await createOrders(10);
    await createOrders(11);
    const again = autoRefresh(rid, dev, `page=desk&after=${ready.data.seq}`);
    expect((await again.next()).type).toBe('ready');
    const refresh = await again.next();
    expect(refresh).toMatchObject({ type: 'refresh', data: { objectTypes: ['sales.Order'] } });
    expect(refresh.data.seq).toBeGreaterThanOrEqual(ready.data.seq + 2);
    again.source.close();
  });

  it('409 when the page has auto-refresh off; 404 for outsiders; the stream ends when the module is deleted', async () => {
    const rid = await published();
    const off = await svc.call('GET', `${BASE}/${rid}/autoRefresh?page=still`, { headers: bearer(dev) });
    expect(off.status).toBe(409);
    expect(off.body.error.code).toBe('auto_refresh_not_enabled');
    expect((await svc.call('GET', `${BASE}/${rid}/autoRefresh?page=desk`, { headers: bearer(gus) })).status).toBe(404);
    const stream = autoRefresh(rid, mo);
    expect((await stream.next()).type).toBe('ready');
    expect((await svc.call('DELETE', `${BASE}/${rid}`, { headers: bearer(dev) })).status).toBe(200);
    const end = await stream.next();
    expect(end).toMatchObject({ type: 'end', data: { code: 'workshop_module_not_found', status: 404 } });
    stream.source.close();
  });

  it('a web session streams too', async () => {
    const rid = await published();
    const res = await fetch(`${svc.url}${BASE}/${rid}/autoRefresh?page=desk`, {
      headers: { ...browser(moCookie, svc), accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    await res.body?.cancel();
  });
});
