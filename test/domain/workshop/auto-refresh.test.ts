import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DomainError } from '../../../domain/errors.ts';
import { findObjectTypeRecord, findOntologyOfCompany } from '../../../domain/ontology/repository.ts';
import { type ChangeHub, type ChangeListener, startChangeHub } from '../../../domain/ontology/subscriptions/change-hub.ts';
import { type Edit, writeEdits } from '../../../domain/ontology/write-edits.ts';
import { startAutoRefresh, type WatchedPage } from '../../../domain/workshop/auto-refresh.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../../support/ontology.ts';

// The auto-refresh session's clock rules (spec Events: at most one refresh per interval, about
// 280 seconds per connection) over the real change hub and PostgreSQL, with vitest's fake timers
// standing in for the 10 and 280 seconds. The hub is started before the clock is faked; its
// notifications arrive over the database connection, which fake timers do not touch.

let database: TestDatabase;
let acme: OntologyFixture;
let hub: ChangeHub;
let watched: WatchedPage;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  database = await createTestDatabase();
  acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
  await define(database.db, acme, SALES);
  hub = await startChangeHub({ db: database.db, databaseUrl: database.url, logger });
  const ontology = (await findOntologyOfCompany(database.db, acme.companyId))!;
  const customer = (await findObjectTypeRecord(database.db, ontology.id, 'sales.Customer'))!;
  watched = { companyId: acme.companyId, version: 1, types: new Map([[customer.id, 'sales.Customer']]), intervalSeconds: 10 };
  // A replay first waits, polling on a timer, for the transactions that were in progress anywhere in
  // the cluster when the hub started (other test files' among them): let that wait pass now, on
  // real timers, so no test's faked clock holds it (and the hub's queue behind it; CI saw it once).
  const seq = await commit();
  await delivered(seq);
}, 60_000);
afterEach(() => vi.useRealTimers());
afterAll(async () => {
  await hub.stop();
  await database.drop();
});

let operation = 0;
let created = 0;
/** Commits a change of a customer (or an order) and waits until the hub has handed it to its listeners. */
async function commit(type: 'customer' | 'order' = 'customer'): Promise<number> {
  const edit: Edit =
    type === 'customer'
      ? { type: 'create', objectType: 'sales.Customer', properties: { id: `c${++created}`, tier: 1 } }
      : { type: 'create', objectType: 'sales.Order', properties: { number: ++created } };
  const result = await database.db
    .transaction()
    .execute((trx) =>
      writeEdits(trx, { companyId: acme.companyId, accountId: null, operationId: `op-${++operation}`, actionTypeRid: null, edits: [edit] }),
    );
  const seq = result.seq!.to;
  await delivered(seq);
  return seq;
}

/** Resolves once the hub has delivered through `seq` (a listener of its own sees it). */
function delivered(seq: number): Promise<void> {
  return new Promise((resolve) => {
    const probe: ChangeListener = {
      companyId: acme.companyId,
      start: () => undefined,
      async deliver(batch) {
        if (batch.throughSeq >= seq) {
          hub.detach(probe);
          resolve();
        }
      },
      stopped: () => undefined,
    };
    void hub.attach(probe, seq - 1);
  });
}

type Sent = { event: string; data: any; id: number | undefined };

function session(recheck: () => Promise<WatchedPage> = async () => watched, after?: number) {
  const sent: Sent[] = [];
  const beats: number[] = [];
  let closed = false;
  let waiter: (() => void) | undefined;
  const s = startAutoRefresh({
    hub,
    watched,
    page: 'desk',
    after,
    recheck,
    logger,
    sink: {
      send: (event, data, id) => {
        sent.push({ event, data, id });
        waiter?.();
      },
      heartbeat: (id) => void beats.push(id),
      close: () => {
        closed = true;
      },
    },
  });
  /** Waits for the n-th event (1-based) without moving the fake clock. */
  const nth = async (n: number) => {
    while (sent.length < n) await new Promise<void>((resolve) => (waiter = resolve));
    return sent[n - 1]!;
  };
  return { sent, beats, nth, isClosed: () => closed, stop: s.stop };
}

const faked = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });

describe('auto-refresh session', () => {
  it('sends the first change at once, then at most one refresh per interval naming every type changed', async () => {
    faked();
    const s = session();
    expect((await s.nth(1)).event).toBe('ready');
    const first = await commit();
    expect(await s.nth(2)).toEqual({ event: 'refresh', data: { seq: first, objectTypes: ['sales.Customer'] }, id: first });
    await commit();
    const last = await commit();
    await vi.advanceTimersByTimeAsync(9_999);
    expect(s.sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.sent.slice(2)).toEqual([{ event: 'refresh', data: { seq: last, objectTypes: ['sales.Customer'] }, id: last }]);
    // Changes to a type the page does not show send nothing, but move the resume point.
    await vi.advanceTimersByTimeAsync(10_000);
    const order = await commit('order');
    await vi.advanceTimersByTimeAsync(15_000);
    expect(s.sent).toHaveLength(3);
    expect(s.beats.at(-1)).toBe(order);
    s.stop();
  });

  it('asks to reconnect after 280 seconds, from the last change it told of (a change still waiting is not skipped)', async () => {
    faked();
    const s = session();
    await s.nth(1);
    await vi.advanceTimersByTimeAsync(272_000);
    const told = await commit();
    expect((await s.nth(2)).data.seq).toBe(told);
    await vi.advanceTimersByTimeAsync(3_000);
    await commit(); // waits for the interval's end (282 s), past the connection's
    await vi.advanceTimersByTimeAsync(4_999);
    expect(s.isClosed()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.sent.slice(2)).toEqual([{ event: 'reconnect', data: { after: told }, id: told }]);
    expect(s.isClosed()).toBe(true);

    // The next connection resumes from there: the waiting change arrives as one refresh.
    vi.useRealTimers();
    const again = session(undefined, told);
    expect((await again.nth(1)).event).toBe('ready');
    expect((await again.nth(2)).data).toEqual({ seq: expect.any(Number), objectTypes: ['sales.Customer'] });
    expect((await again.nth(2)).data.seq).toBeGreaterThan(told);
    again.stop();
  });

  it('ends (no reconnect) when the re-check finds the module gone, and only asks again on other failures', async () => {
    faked();
    let answer: () => Promise<WatchedPage> = async () => {
      throw new Error('database hiccup');
    };
    const s = session(() => answer());
    await s.nth(1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(s.isClosed()).toBe(false);
    answer = async () => {
      throw new DomainError('workshop_module_not_found');
    };
    await vi.advanceTimersByTimeAsync(5_000);
    expect(s.sent.at(-1)).toEqual({
      event: 'end',
      data: { code: 'workshop_module_not_found', status: 404, message: expect.any(String) },
      id: undefined,
    });
    expect(s.isClosed()).toBe(true);
  });
});
