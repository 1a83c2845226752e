import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../support/clock.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, createUser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// A marked object type in every read path (spec G, markings on top of roles): it does not leak to a
// developer who lacks the marking (list, get, objects, search, aggregate counts, object sets, SQL),
// shows once the developer is cleared directly or through a group, and hides again when the group
// membership expires; an app reading the type sees it only for visitors cleared for it.

const clock = new TestClock('2026-11-27T10:00:00Z');
let svc: TestService;
let dana: string;
let dev2: string;
let dev2Id: string;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;
let markingId: string;
let ticket: string;
const O = '/api/v1/ontologies/cell-acme';

beforeAll(async () => {
  svc = await startTestService({ clock });
  let op: string;
  ({ op, accounts } = await seedCompanies(svc));
  dana = await passwordKey(svc, 'dana');
  dev2Id = (await createUser(svc, op, 'dev2', [{ cellId: 'cell-acme', role: 'developer' }])).id;
  dev2 = await passwordKey(svc, 'dev2');
  const call = (method: string, path: string, body?: unknown) => svc.call(method, path, { body, headers: bearer(dana) });
  expect((await call('POST', '/api/v1/developer/semantic/cell-acme/types', SALES)).status).toBe(200);
  const edits = await call('POST', `${O}/edits`, {
    edits: [
      { type: 'create', objectType: 'sales.Customer', properties: { id: 'c1', name: 'Ada' } },
      { type: 'create', objectType: 'sales.Order', properties: { number: 1, amount: 10 } },
      { type: 'create', objectType: 'sales.Order', properties: { number: 2, amount: 20 } },
    ],
  });
  expect(edits.status, JSON.stringify(edits.body)).toBe(200);
  // The member's app reads both types; mo opens it.
  await release(svc, dana, {
    namespace: 'cell-acme',
    slug: 'orders',
    version: '1.0.0',
    manifest: { semantic: { types: ['sales.Customer', 'sales.Order'] } },
  });
  ticket = injected(
    (await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/orders`, { cookie: await signIn(svc, 'mo') })).text,
  ).ticket;

  const category = await call('POST', '/api/v1/admin/markingCategories', { name: 'Secrecy', categoryType: 'CONJUNCTIVE' });
  const marking = await call('POST', '/api/v1/admin/markings', {
    categoryId: category.body.data.id,
    name: 'Finance only',
    initialRoleAssignments: [{ principalType: 'USER', principalId: accounts.dana, role: 'ADMINISTER' }],
  });
  expect(marking.status, JSON.stringify(marking.body)).toBe(201);
  markingId = marking.body.data.id;
  const orderRid = (await call('GET', `${O}/objectTypes/sales.Order`)).body.data.rid;
  expect((await call('POST', `/api/v1/filesystem/resources/${orderRid}/addMarkings`, { markingIds: [markingId] })).status).toBe(200);
});
afterAll(() => svc.close());
beforeEach(async () => {
  clock.set('2026-11-27T10:00:00Z');
  await resetRateLimits(svc);
});

const roles = (change: 'add' | 'remove', principalType: 'USER' | 'GROUP', principalId: string) =>
  svc.call('POST', `/api/v1/admin/markings/${markingId}/roleAssignments/${change}`, {
    body: { roleAssignments: [{ principalType, principalId, role: 'USE' }] },
    headers: bearer(dana),
  });

/** What each read path shows the caller of sales.Order: true where it sees the type, its objects or their count. */
async function seesOrders(headers: Record<string, string>) {
  const post = (path: string, body: unknown) => svc.call('POST', path, { body, headers });
  const types = await svc.call('GET', `${O}/objectTypes`, { headers });
  expect(types.status).toBe(200);
  const answers = {
    listTypes: types.body.data.data.some((t: { apiName: string }) => t.apiName === 'sales.Order'),
    getType: (await svc.call('GET', `${O}/objectTypes/sales.Order`, { headers })).status,
    list: (await svc.call('GET', `${O}/objects/sales.Order`, { headers })).status,
    get: (await svc.call('GET', `${O}/objects/sales.Order/1`, { headers })).status,
    search: (await post(`${O}/objects/sales.Order/search`, {})).status,
    aggregate: (await post(`${O}/objects/sales.Order/aggregate`, { aggregation: [{ type: 'count' }] })).body.data?.data ?? null,
    objectSet: (
      await post(`${O}/objectSets/aggregate`, { objectSet: { type: 'base', objectType: 'sales.Order' }, aggregation: [{ type: 'count' }] })
    ).status,
    // The count of orders through their customers (search around the link) is no way in either.
    searchAround: (
      await post(`${O}/objectSets/loadObjects`, {
        objectSet: { type: 'searchAround', objectSet: { type: 'base', objectType: 'sales.Customer' }, link: 'orders' },
      })
    ).status,
    sql:
      (await post('/api/v1/sqlQueries/executeOntology', { ontology: 'cell-acme', query: 'SELECT count(*) FROM "sales.Order"' })).body.data
        ?.rows ?? null,
  };
  return answers;
}

const HIDDEN = {
  listTypes: false,
  getType: 404,
  list: 404,
  get: 404,
  search: 404,
  aggregate: null,
  objectSet: 404,
  searchAround: 404,
  sql: null,
};
const SHOWN = {
  listTypes: true,
  getType: 200,
  list: 200,
  get: 200,
  search: 200,
  aggregate: [{ group: {}, metrics: [{ name: 'count', value: 2 }] }],
  objectSet: 200,
  searchAround: 200,
  sql: [[2]],
};

describe('a marked object type', () => {
  it('is in every read path for a developer cleared for its marking, and in none for a developer who is not', async () => {
    expect(await seesOrders(bearer(dana))).toEqual(SHOWN);
    expect(await seesOrders(bearer(dev2))).toEqual(HIDDEN);
    // Its unmarked neighbour stays readable.
    expect((await svc.call('GET', `${O}/objects/sales.Customer`, { headers: bearer(dev2) })).status).toBe(200);
    // Nor does it write the hidden type directly.
    const edit = await svc.call('POST', `${O}/edits`, {
      body: { edits: [{ type: 'delete', objectType: 'sales.Order', primaryKey: 1 }] },
      headers: bearer(dev2),
    });
    expect([edit.status, edit.body.error.code]).toEqual([404, 'object_type_not_found']);
    expect((await svc.call('GET', `${O}/objects/sales.Order/1`, { headers: bearer(dana) })).status).toBe(200);
  });

  it('shows once the developer is cleared directly, and hides again when the role is removed', async () => {
    expect((await roles('add', 'USER', dev2Id)).status).toBe(200);
    expect(await seesOrders(bearer(dev2))).toEqual(SHOWN);
    expect((await roles('remove', 'USER', dev2Id)).status).toBe(200);
    expect(await seesOrders(bearer(dev2))).toEqual(HIDDEN);
  });

  it('shows through a group, and hides again once the membership expires', async () => {
    const group = await svc.call('POST', '/api/v1/admin/groups', { body: { name: 'Finance' }, headers: bearer(dana) });
    const groupId = group.body.data.id;
    const added = await svc.call('POST', `/api/v1/admin/groups/${groupId}/groupMembers/add`, {
      body: { principalIds: [dev2Id], expiration: '2026-11-27T11:00:00Z' },
      headers: bearer(dana),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect((await roles('add', 'GROUP', groupId)).status).toBe(200);
    expect(await seesOrders(bearer(dev2))).toEqual(SHOWN);
    clock.set('2026-11-27T11:00:01Z');
    expect(await seesOrders(bearer(dev2))).toEqual(HIDDEN);
    expect((await roles('remove', 'GROUP', groupId)).status).toBe(200);
  });

  it('an app reading the type shows it only to visitors cleared for its marking', async () => {
    const search = () => svc.call('POST', `${O}/objects/sales.Order/search`, { body: {}, headers: bearer(ticket) });
    expect((await search()).status).toBe(404);
    expect((await svc.call('POST', `${O}/objects/sales.Customer/search`, { body: {}, headers: bearer(ticket) })).status).toBe(200);
    expect((await roles('add', 'USER', accounts.mo)).status).toBe(200);
    expect((await search()).body.data.data).toHaveLength(2);
    expect((await roles('remove', 'USER', accounts.mo)).status).toBe(200);
    expect((await search()).status).toBe(404);
  });

  it('a marked app opens only for visitors it clears, developers included; its ticket no longer reads through it', async () => {
    const appRid = 'ri.workshop.svc.app.cell-acme.orders';
    const open = async (user: string) =>
      (await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/orders`, { cookie: await signIn(svc, user) })).status;
    const mark = (change: 'add' | 'remove') =>
      svc.call('POST', `/api/v1/filesystem/resources/${appRid}/${change}Markings`, {
        body: { markingIds: [markingId] },
        headers: bearer(dana),
      });
    expect(await open('mo')).toBe(200);
    expect((await mark('add')).status).toBe(200);
    expect(await open('mo')).toBe(403);
    expect(await open('dev2')).toBe(403);
    // dana administers the marking: cleared.
    expect(await open('dana')).toBe(200);
    // The ticket mo holds from before acts through the app no more.
    expect((await svc.call('POST', `${O}/objects/sales.Customer/search`, { body: {}, headers: bearer(ticket) })).status).toBe(404);
    expect((await roles('add', 'USER', accounts.mo)).status).toBe(200);
    expect(await open('mo')).toBe(200);
    expect((await roles('remove', 'USER', accounts.mo)).status).toBe(200);
    expect((await mark('remove')).status).toBe(200);
    expect(await open('mo')).toBe(200);
  });
});
