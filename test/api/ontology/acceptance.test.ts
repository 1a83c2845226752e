import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOntology } from '../../../domain/ontology/repository.ts';
import { release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { ACTIONS } from '../../support/ontology-actions.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { openSse, type SseStream } from '../../support/sse.ts';

// Issue 15's acceptance, end to end over HTTP: a developer defines two linked object types and
// loads 10,000 objects; a member runs the action its app lists and not another; a search and an
// aggregate answer as computed here from the loaded data; SQL sees only the company's data; a
// subscriber sees a change live and, after a reconnect, the change it missed.

let svc: TestService;
let dev: string;
let member: string;
let globex: string;
const O = '/api/v1/ontologies/cell-acme';
const ORDERS = Array.from({ length: 10_000 }, (_, i) => ({ number: i + 1, amount: (i * 37) % 100, paid: i % 3 === 0 }));
const streams: SseStream[] = [];

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  member = await passwordKey(svc, 'mo');
  globex = await passwordKey(svc, 'gus');
}, 120_000);
afterAll(async () => {
  for (const s of streams) s.close();
  await svc?.close();
});

const call = async (method: string, path: string, body: unknown, key: string) => {
  await resetRateLimits(svc);
  return svc.call(method, path, { body, headers: bearer(key) });
};

describe('issue 15 acceptance', () => {
  it('defines two linked types, loads 10,000 objects, and members act and read only as their app lists', async () => {
    const defined = await call('POST', '/api/v1/developer/semantic/cell-acme/types', SALES, dev);
    expect(defined.status, JSON.stringify(defined.body)).toBe(200);
    expect((await call('GET', `${O}/objectTypes/sales.Order/outgoingLinkTypes`, undefined, dev)).body.data.data).toEqual([
      expect.objectContaining({ apiName: 'customer', objectTypeApiName: 'sales.Customer' }),
    ]);
    const loaded = await call('POST', `${O}/objects/sales.Order/import`, ORDERS, dev);
    expect(loaded.body.data).toMatchObject({ created: 10_000 });
    const linked = await call(
      'POST',
      `${O}/edits`,
      {
        edits: [
          { type: 'create', objectType: 'sales.Customer', properties: { id: 'c1', name: 'Ada' } },
          { type: 'addLink', linkType: 'order-customer', source: 2, target: 'c1' },
        ],
      },
      dev,
    );
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect((await call('GET', `${O}/objects/sales.Order/2/links/customer`, undefined, dev)).body.data.data).toEqual([
      expect.objectContaining({ id: 'c1', name: 'Ada' }),
    ]);

    expect((await call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', ACTIONS, dev)).status).toBe(200);
    await release(svc, dev, {
      namespace: 'cell-acme',
      slug: 'orders',
      version: '1.0.0',
      manifest: { semantic: { types: ['sales.Order'], actions: ['sales.payOrder'] } },
    });
    // Order 2 is unpaid (1 % 3 !== 0): the listed action runs; the unlisted one does not exist for the member.
    const paid = await call('POST', `${O}/actions/sales.payOrder/apply`, { parameters: { order: 2 } }, member);
    expect(paid.body.data?.validation.result, JSON.stringify(paid.body)).toBe('VALID');
    const again = await call('POST', `${O}/actions/sales.payOrder/apply`, { parameters: { order: 2 } }, member);
    expect(again.body.data.validation.result).toBe('INVALID');
    const unlisted = await call('POST', `${O}/actions/sales.setNote/apply`, { parameters: { order: 2, note: 'x' } }, member);
    expect([unlisted.status, unlisted.body.error.code]).toEqual([404, 'action_type_not_found']);
    const customers = await call('POST', `${O}/objects/sales.Customer/search`, {}, member);
    expect([customers.status, customers.body.error.code]).toEqual([404, 'object_type_not_found']);

    // The model: the loaded orders with the payment the member made.
    const now = ORDERS.map((o) => (o.number === 2 ? { ...o, paid: true } : o));
    const where = {
      type: 'and',
      value: [
        { type: 'gte', field: 'amount', value: 90 },
        { type: 'eq', field: 'paid', value: false },
      ],
    };
    const expected = now.filter((o) => o.amount >= 90 && !o.paid).map((o) => o.number);
    const search = await call('POST', `${O}/objects/sales.Order/search`, { where, pageSize: 1000, select: ['number'] }, member);
    expect(search.body.data.totalCount).toBe(expected.length);
    expect(search.body.data.data.map((o: { number: number }) => o.number)).toEqual(expected.slice(0, 1000));
    const aggregate = await call(
      'POST',
      `${O}/objects/sales.Order/aggregate`,
      { aggregation: [{ type: 'count' }, { type: 'sum', field: 'amount', name: 'total' }], groupBy: [{ type: 'exact', field: 'paid' }] },
      member,
    );
    const byPaid = (p: boolean) => now.filter((o) => o.paid === p);
    expect(aggregate.body.data.data).toEqual(
      expect.arrayContaining(
        [false, true].map((p) => ({
          group: { paid: p },
          metrics: [
            { name: 'count', value: byPaid(p).length },
            { name: 'total', value: byPaid(p).reduce((sum, o) => sum + o.amount, 0) },
          ],
        })),
      ),
    );
  }, 120_000);

  it('answers SQL over the company’s own tables only', async () => {
    expect((await call('POST', '/api/v1/developer/semantic/cell-globex/types', SALES, globex)).status).toBe(200);
    const theirs = [1, 2, 3].map((number) => ({ number, amount: 1000 }));
    expect((await call('POST', '/api/v1/ontologies/cell-globex/objects/sales.Order/import', theirs, globex)).status).toBe(200);
    const count = (key: string) =>
      call('POST', '/api/v1/sqlQueries/executeOntology', { query: 'SELECT count(*) AS n, max(amount) AS top FROM "sales.Order"' }, key);
    expect((await count(dev)).body.data.rows).toEqual([[10_000, 99]]);
    expect((await count(globex)).body.data.rows).toEqual([[3, 1000]]);
    const schema = (await findOntology(svc.database.db, 'cell-globex'))!.schemaName;
    const across = await call('POST', '/api/v1/sqlQueries/executeOntology', { query: `SELECT * FROM ${schema}."sales.Order"` }, dev);
    expect([across.status, across.body.error.code]).toEqual([400, 'query_invalid']);
  });

  it('streams a change to a subscriber live, and after a reconnect the change it missed', async () => {
    const path = `${svc.url}/api/v1/ontologySubscriptions/ontologies/cell-acme/streamSubscriptions`;
    const body = { id: 'orders', requests: [{ objectSet: { type: 'base', objectType: 'sales.Order' } }] };
    const first = await openSse(path, body, bearer(member));
    streams.push(first);
    expect((await first.next()).event).toBe('subscribeResponses');
    const modify = (number: number, amount: number) =>
      call(
        'POST',
        `${O}/edits`,
        { edits: [{ type: 'modify', objectType: 'sales.Order', primaryKey: number, properties: { amount } }] },
        dev,
      );
    await modify(10, 1);
    const live = await first.next();
    expect(live.data.updates).toEqual([
      expect.objectContaining({ state: 'ADDED_OR_UPDATED', object: expect.objectContaining({ number: 10, amount: 1 }) }),
    ]);
    const resumeFrom = first.lastId();
    first.close();
    await modify(11, 2);
    const second = await openSse(path, { ...body, afterSeq: Number(resumeFrom) }, bearer(member));
    streams.push(second);
    expect((await second.next()).event).toBe('subscribeResponses');
    const missed = await second.next();
    expect(missed.data.updates).toEqual([expect.objectContaining({ object: expect.objectContaining({ number: 11, amount: 2 }) })]);
  });
});
