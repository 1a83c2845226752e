import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findOntology } from '../../../../domain/ontology/repository.ts';
import { trimChanges } from '../../../../domain/ontology/subscriptions/trim-changes.ts';
import { type Edit, writeEdits } from '../../../../domain/ontology/write-edits.ts';
import { release } from '../../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../../support/identity.ts';
import { SALES } from '../../../support/ontology.ts';
import { startTestService, type TestService } from '../../../support/service.ts';
import { openSse, type SseStream } from '../../../support/sse.ts';

// Object-set subscriptions over real HTTP and PostgreSQL: changes committed by the one writer
// reach the streams through the process's change hub.

let svc: TestService;
let devKey: string;
let memberKey: string;
let otherKey: string;
let memberCookie: string;
let companyId: string;
const STREAM = '/api/v1/ontologySubscriptions/ontologies/cell-acme/streamSubscriptions';
const streams: SseStream[] = [];

const customers = { type: 'base', objectType: 'sales.Customer' } as const;
const orders = { type: 'base', objectType: 'sales.Order' } as const;
const tierAtLeast = (n: number) => ({ type: 'filter', objectSet: customers, where: { type: 'gte', field: 'tier', value: n } });
const tierBelow = (n: number) => ({ type: 'filter', objectSet: customers, where: { type: 'lt', field: 'tier', value: n } });

async function subscribe(headers: Record<string, string>, body: unknown, path = STREAM): Promise<SseStream> {
  const s = await openSse(`${svc.url}${path}`, body, headers);
  streams.push(s);
  return s;
}

let operation = 0;
async function write(...edits: Edit[]) {
  const result = await svc.database.db
    .transaction()
    .execute((trx) => writeEdits(trx, { companyId, accountId: null, operationId: `op-${++operation}`, actionTypeRid: null, edits }));
  return result.seq!.to;
}
const customer = (id: string, tier: number, name = id): Edit => ({
  type: 'create',
  objectType: 'sales.Customer',
  properties: { id, name, tier },
});
const setTier = (id: string, tier: number): Edit => ({
  type: 'modify',
  objectType: 'sales.Customer',
  primaryKey: id,
  properties: { tier },
});
const remove = (id: string): Edit => ({ type: 'delete', objectType: 'sales.Customer', primaryKey: id });

/** The updates of the next event, which must be objectSetChanged, as [primary key, state, tier]. */
async function nextUpdates(s: SseStream) {
  const e = await s.next();
  expect(e.event, JSON.stringify(e.data)).toBe('objectSetChanged');
  return e.data.updates.map((u: { object: Record<string, unknown>; state: string }) => [u.object.__primaryKey, u.state, u.object.tier]);
}

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  otherKey = await passwordKey(svc, 'gus');
  memberCookie = await signIn(svc, 'mo');
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(devKey) });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  companyId = (await findOntology(svc.database.db, 'cell-acme'))!.companyId;
  // Members read customers (their app lists them), never orders.
  await release(svc, devKey, {
    namespace: 'cell-acme',
    slug: 'crm',
    version: '1.0.0',
    manifest: { semantic: { types: ['sales.Customer'] } },
  });
});
afterAll(async () => {
  for (const s of streams) s.close();
  await svc.close();
});
beforeEach(() => resetRateLimits(svc));

describe('object-set subscriptions', () => {
  it('sends a committed change live, with its sequence number as the event id', async () => {
    const s = await subscribe(bearer(devKey), { id: 'live', requests: [{ objectSet: customers }] });
    expect(s.status).toBe(200);
    const hello = await s.next();
    expect(hello.event).toBe('subscribeResponses');
    expect(hello.data).toEqual({ type: 'subscribeResponses', id: 'live', responses: [{ type: 'success', id: 'live:0' }] });
    const seq = await write(customer('c-live', 1, 'Live Ltd'));
    const changed = await s.next();
    expect(changed.id).toBe(String(seq));
    expect(changed.data).toEqual({
      type: 'objectSetChanged',
      id: 'live:0',
      updates: [
        {
          type: 'object',
          state: 'ADDED_OR_UPDATED',
          object: expect.objectContaining({ __apiName: 'sales.Customer', __primaryKey: 'c-live', name: 'Live Ltd', tier: 1, __rev: 1 }),
        },
      ],
    });
    s.close();
  });

  it('resumes after a dropped connection with every change since the last event id, in order', async () => {
    const body = { id: 'resume', requests: [{ objectSet: customers, propertySet: ['tier'] }] };
    const first = await subscribe(bearer(devKey), body);
    await first.next();
    await write(customer('r1', 1));
    expect(await nextUpdates(first)).toEqual([['r1', 'ADDED_OR_UPDATED', 1]]);
    const last = first.lastId()!;
    first.close();
    // While no one listens: an update, a new object, a removal (the removal in the same transaction as another change).
    await write(setTier('r1', 2));
    await write(customer('r2', 5));
    await write(remove('r1'), setTier('r2', 6));
    const again = await subscribe({ ...bearer(devKey), 'last-event-id': last }, body);
    const hello = await again.next();
    expect([hello.event, hello.id]).toEqual(['subscribeResponses', last]);
    // A replay may join changes in fewer events than they were made in; the order is kept.
    const replayed: unknown[] = [];
    while (replayed.length < 4) replayed.push(...(await nextUpdates(again)));
    expect(replayed).toEqual([
      ['r1', 'ADDED_OR_UPDATED', 2],
      ['r2', 'ADDED_OR_UPDATED', 5],
      ['r1', 'REMOVED', undefined],
      ['r2', 'ADDED_OR_UPDATED', 6],
    ]);
    // Then live, on the same stream; afterSeq in the body does the same as Last-Event-ID.
    const seq = await write(setTier('r2', 7));
    const live = await again.next();
    expect(live.id).toBe(String(seq));
    expect(live.data.updates[0].object).toEqual({
      __apiName: 'sales.Customer',
      __primaryKey: 'r2',
      __rid: expect.any(String),
      __rev: 3,
      tier: 7,
    });
    again.close();
    const byBody = await subscribe(bearer(devKey), { ...body, afterSeq: Number(live.id) - 1 });
    await byBody.next();
    expect(await nextUpdates(byBody)).toEqual([['r2', 'ADDED_OR_UPDATED', 7]]);
    byBody.close();
  });

  it('never sends an object to a caller who cannot read its type or whose set does not hold it', async () => {
    const hidden = await subscribe(bearer(memberKey), { requests: [{ objectSet: orders }] });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'object_type_not_found']);
    const outsider = await subscribe(bearer(otherKey), { requests: [{ objectSet: customers }] });
    expect([outsider.status, outsider.body.error.code]).toEqual([404, 'ontology_not_found']);

    const member = await subscribe(browser(memberCookie, svc), { id: 'm', requests: [{ objectSet: tierAtLeast(3) }] });
    expect(member.status).toBe(200);
    await member.next();
    await write({ type: 'create', objectType: 'sales.Order', properties: { number: 1, amount: 10 } }, customer('low', 1));
    await write(customer('high', 3));
    // The order and the customer below tier 3 never reach the member: the first event is the tier-3 customer.
    expect(await nextUpdates(member)).toEqual([['high', 'ADDED_OR_UPDATED', 3]]);
    member.close();
  });

  it('sends leave notices only to subscribers whose set held the object before', async () => {
    const high = await subscribe(bearer(memberKey), { id: 'high', requests: [{ objectSet: tierAtLeast(3) }] });
    const low = await subscribe(bearer(memberKey), { id: 'low', requests: [{ objectSet: tierBelow(3) }] });
    await high.next();
    await low.next();
    await write(customer('mover', 4));
    expect(await nextUpdates(high)).toEqual([['mover', 'ADDED_OR_UPDATED', 4]]);
    await write(setTier('mover', 1));
    expect(await nextUpdates(high)).toEqual([['mover', 'REMOVED', undefined]]);
    expect(await nextUpdates(low)).toEqual([['mover', 'ADDED_OR_UPDATED', 1]]);
    // Deleted while in the low set: only the low subscriber hears of it.
    await write(remove('mover'));
    const removed = await low.next();
    expect(removed.data.updates).toEqual([
      { type: 'object', state: 'REMOVED', object: { __apiName: 'sales.Customer', __primaryKey: 'mover', __rid: expect.any(String) } },
    ]);
    await write(customer('marker', 9));
    expect(await nextUpdates(high)).toEqual([['marker', 'ADDED_OR_UPDATED', 9]]);
    high.close();
    low.close();
  });

  it('asks for a reload when a batch is too large or the resume point was trimmed', async () => {
    const s = await subscribe(bearer(devKey), { id: 'big', requests: [{ objectSet: customers }] });
    const hello = await s.next();
    const many = Array.from({ length: 1001 }, (_, i) => customer(`bulk-${i}`, 0));
    const seq = await write(...many);
    const refresh = await s.next();
    expect([refresh.event, refresh.id, refresh.data]).toEqual([
      'refreshObjectSet',
      String(seq),
      { type: 'refreshObjectSet', id: 'big:0', objectType: 'sales.Customer' },
    ]);
    s.close();
    // Retention trims everything (a day later): resuming from before it reloads, then goes on live.
    const trimmed = await trimChanges(svc.database.db, { now: new Date(Date.now() + 25 * 3_600_000), keepHours: 24, batchSize: 100_000 });
    expect(trimmed).toBeGreaterThan(1001);
    const again = await subscribe(bearer(devKey), { id: 'big', requests: [{ objectSet: customers }], afterSeq: Number(hello.id) });
    const restart = await again.next();
    expect(restart.event).toBe('subscribeResponses');
    expect(Number(restart.id)).toBeGreaterThanOrEqual(seq);
    const reload = await again.next();
    expect([reload.event, reload.id, reload.data.objectType]).toEqual(['refreshObjectSet', restart.id, 'sales.Customer']);
    await write(setTier('bulk-0', 1));
    expect(await nextUpdates(again)).toEqual([['bulk-0', 'ADDED_OR_UPDATED', 1]]);
    again.close();
    // A sequence number this service never issued (another database's) reloads too.
    const foreign = await subscribe(bearer(devKey), { id: 'big', requests: [{ objectSet: customers }], afterSeq: 10 ** 12 });
    await foreign.next();
    expect((await foreign.next()).event).toBe('refreshObjectSet');
    foreign.close();
  });

  it('ends every subscription with subscriptionClosed when the key is revoked', async () => {
    const key = await passwordKey(svc, 'dana');
    const s = await subscribe(bearer(key), { id: 'revoked', requests: [{ objectSet: customers }, { objectSet: orders }] });
    await s.next();
    const keys = await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(key) });
    const mine = keys.body.data.keys.find((k: { current: boolean }) => k.current);
    const revoked = await svc.call('DELETE', `/api/v1/developer/keys/${mine.keyId}`, { headers: bearer(key) });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const closed = [await s.next(), await s.next()];
    expect(closed.map((e) => [e.event, e.data.id, e.data.cause.code, e.data.cause.status])).toEqual([
      ['subscriptionClosed', 'revoked:0', 'unauthorized', 401],
      ['subscriptionClosed', 'revoked:1', 'unauthorized', 401],
    ]);
    await s.ended;
  });

  it('refuses sets of several types, unknown properties and unknown fields', async () => {
    const mixed = await subscribe(bearer(devKey), { requests: [{ objectSet: { type: 'union', objectSets: [customers, orders] } }] });
    expect([mixed.status, mixed.body.error.code, mixed.body.error.details.errorName]).toEqual([
      400,
      'query_invalid',
      'ObjectSetTypesDiffer',
    ]);
    const property = await subscribe(bearer(devKey), { requests: [{ objectSet: customers, propertySet: ['nope'] }] });
    expect([property.status, property.body.error.details.errorName]).toEqual([400, 'PropertiesNotFound']);
    const where = await subscribe(bearer(devKey), {
      requests: [{ objectSet: { type: 'filter', objectSet: customers, where: { type: 'gt', field: 'nope', value: 1 } } }],
    });
    expect([where.status, where.body.error.code]).toEqual([400, 'query_invalid']);
    const unknown = await subscribe(bearer(devKey), { requests: [{ objectSet: customers, referenceSet: [] }] });
    expect([unknown.status, unknown.body.error.code, unknown.body.error.details.problems[0].path]).toEqual([
      400,
      'invalid_payload',
      'requests[0].referenceSet',
    ]);
  });
  // Changes what members may read: after the tests that need them.
  it('ends a member’s subscriptions when its app no longer lists the type', async () => {
    const s = await subscribe(bearer(memberKey), { id: 'unlisted', requests: [{ objectSet: customers }] });
    await s.next();
    await release(svc, devKey, { namespace: 'cell-acme', slug: 'crm', version: '1.0.1', manifest: { semantic: { types: [] } } });
    const closed = await s.next();
    expect([closed.event, closed.data.id, closed.data.cause.status]).toEqual(['subscriptionClosed', 'unlisted:0', 404]);
    await s.ended;
  });

  // Last: it stops the service.
  it('ends the streams with subscriptionClosed when the service shuts down, so the shutdown does not wait for them', async () => {
    const s = await subscribe(bearer(devKey), { id: 'bye', requests: [{ objectSet: customers }] });
    await s.next();
    const stopping = svc.stop();
    const closed = await s.next();
    expect([closed.event, closed.data.cause.code, closed.data.cause.status]).toEqual(['subscriptionClosed', 'service_unavailable', 503]);
    await s.ended;
    await stopping;
  });
});
