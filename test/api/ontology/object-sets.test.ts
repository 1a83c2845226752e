import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Links and object sets over real HTTP: five customers, six orders, each order linked to its customer.

let svc: TestService;
let devKey: string;
let memberKey: string;
const O = '/api/v1/ontologies/cell-acme';

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(devKey) })).status).toBe(200);
  const customers = [1, 2, 3, 4, 5].map((i) => ({
    type: 'create',
    objectType: 'sales.Customer',
    properties: { id: `c${i}`, tier: i % 2 },
  }));
  // order n belongs to customer c(1 + n % 3): c1 has 3 and 6, c2 has 1 and 4, c3 has 2 and 5.
  const orders = [1, 2, 3, 4, 5, 6].flatMap((n) => [
    { type: 'create', objectType: 'sales.Order', properties: { number: n, amount: n * 10 } },
    { type: 'addLink', linkType: 'order-customer', source: n, target: `c${1 + (n % 3)}` },
  ]);
  const res = await svc.call('POST', `${O}/edits`, { body: { edits: [...customers, ...orders] }, headers: bearer(devKey) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const dev = () => bearer(devKey);
const load = async (objectSet: unknown, headers = dev()) => {
  const res = await svc.call('POST', `${O}/objectSets/loadObjects`, { body: { objectSet }, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.data.map((o: { __primaryKey: unknown }) => o.__primaryKey);
};
const base = (objectType: string) => ({ type: 'base', objectType });
const customersOfTier = (tier: number) => ({
  type: 'filter',
  objectSet: base('sales.Customer'),
  where: { type: 'eq', field: 'tier', value: tier },
});

describe('links', () => {
  it('lists the objects linked to one object, from either side', async () => {
    const orders = await svc.call('GET', `${O}/objects/sales.Customer/c1/links/orders`, { headers: dev() });
    expect(orders.body.data.data.map((o: { number: number }) => o.number)).toEqual([3, 6]);
    const customer = await svc.call('GET', `${O}/objects/sales.Order/4/links/customer`, { headers: dev() });
    expect(customer.body.data.data.map((o: { id: string }) => o.id)).toEqual(['c2']);
    expect((await svc.call('GET', `${O}/objects/sales.Order/4/links/customer/c2`, { headers: dev() })).body.data.id).toBe('c2');
    const notLinked = await svc.call('GET', `${O}/objects/sales.Order/4/links/customer/c1`, { headers: dev() });
    expect([notLinked.status, notLinked.body.error.code]).toEqual([404, 'object_not_found']);
    const noLink = await svc.call('GET', `${O}/objects/sales.Order/4/links/supplier`, { headers: dev() });
    expect([noLink.status, noLink.body.error.code]).toEqual([404, 'link_type_not_found']);
    const noObject = await svc.call('GET', `${O}/objects/sales.Order/99/links/customer`, { headers: dev() });
    expect([noObject.status, noObject.body.error.code]).toEqual([404, 'object_not_found']);
  });
});

describe('object sets', () => {
  it('base, filter, union, intersect and subtract', async () => {
    expect(await load(base('sales.Customer'))).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(await load(customersOfTier(1))).toEqual(['c1', 'c3', 'c5']);
    const first = { type: 'static', objects: [] as string[] };
    const c2 = (await svc.call('GET', `${O}/objects/sales.Customer/c2`, { headers: dev() })).body.data.__rid;
    const c3 = (await svc.call('GET', `${O}/objects/sales.Customer/c3`, { headers: dev() })).body.data.__rid;
    first.objects = [c2, c3];
    expect(await load(first)).toEqual(['c2', 'c3']);
    expect(await load({ type: 'union', objectSets: [customersOfTier(1), first] })).toEqual(['c1', 'c2', 'c3', 'c5']);
    expect(await load({ type: 'intersect', objectSets: [customersOfTier(1), first] })).toEqual(['c3']);
    expect(await load({ type: 'subtract', objectSets: [base('sales.Customer'), customersOfTier(1), first] })).toEqual(['c4']);
  });

  it('searchAround follows a link from every object of a set, nested', async () => {
    // Orders of tier-1 customers (c1, c3, c5): 3, 6, 2, 5.
    const orders = { type: 'searchAround', objectSet: customersOfTier(1), link: 'orders' };
    expect(await load(orders)).toEqual([2, 3, 5, 6]);
    // And back: the customers of those orders that are over 40.
    const back = {
      type: 'searchAround',
      objectSet: { type: 'filter', objectSet: orders, where: { type: 'gt', field: 'amount', value: 40 } },
      link: 'customer',
    };
    expect(await load(back)).toEqual(['c1', 'c3']);
    const aggregate = await svc.call('POST', `${O}/objectSets/aggregate`, {
      body: { objectSet: orders, aggregation: [{ type: 'sum', field: 'amount' }] },
      headers: dev(),
    });
    expect(aggregate.body.data.data).toEqual([{ group: {}, metrics: [{ name: 'sum_amount', value: 160 }] }]);
  });

  it('keeps a temporary set that others reference, and reads its definition back', async () => {
    const made = await svc.call('POST', `${O}/objectSets/createTemporary`, { body: { objectSet: customersOfTier(0) }, headers: dev() });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const rid = made.body.data.objectSetRid as string;
    expect(rid).toMatch(/^ri\.object-set\.svc\.temporary\./);
    expect(await load({ type: 'reference', reference: rid })).toEqual(['c2', 'c4']);
    const wrapped = await svc.call('POST', `${O}/objectSets/createTemporary`, {
      body: { objectSet: { type: 'union', objectSets: [{ type: 'reference', reference: rid }] } },
      headers: dev(),
    });
    const got = await svc.call('GET', `${O}/objectSets/${wrapped.body.data.objectSetRid}`, { headers: dev() });
    expect(got.body.data.objectSet).toEqual({ type: 'union', objectSets: [customersOfTier(0)] });
    const expired = await svc.call('GET', `${O}/objectSets/ri.object-set.svc.temporary.ost_000000000000000`, { headers: dev() });
    expect([expired.status, expired.body.error.code]).toEqual([404, 'object_set_not_found']);
  });

  it('refuses sets of mixed types, and links whose other end the caller cannot read', async () => {
    const mixed = await svc.call('POST', `${O}/objectSets/loadObjects`, {
      body: { objectSet: { type: 'union', objectSets: [base('sales.Customer'), base('sales.Order')] } },
      headers: dev(),
    });
    expect([mixed.status, mixed.body.error.details.errorName]).toEqual([400, 'ObjectSetTypeMismatch']);
    await release(svc, devKey, {
      namespace: 'cell-acme',
      slug: 'crm',
      version: '1.0.0',
      manifest: { semantic: { types: ['sales.Customer'] } },
    });
    expect(await load(customersOfTier(0), bearer(memberKey))).toEqual(['c2', 'c4']);
    const around = await svc.call('POST', `${O}/objectSets/loadObjects`, {
      body: { objectSet: { type: 'searchAround', objectSet: base('sales.Customer'), link: 'orders' } },
      headers: bearer(memberKey),
    });
    expect([around.status, around.body.error.code]).toEqual([404, 'link_type_not_found']);
    const hidden = await svc.call('POST', `${O}/objectSets/loadObjects`, {
      body: { objectSet: base('sales.Order') },
      headers: bearer(memberKey),
    });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'object_type_not_found']);
  });
});
