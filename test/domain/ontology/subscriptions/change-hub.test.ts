import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Change, type ChangeHub, type ChangeListener, startChangeHub } from '../../../../domain/ontology/subscriptions/change-hub.ts';
import { type Edit, writeEdits } from '../../../../domain/ontology/write-edits.ts';
import { createTestDatabase, type TestDatabase } from '../../../support/database.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../../../support/ontology.ts';

// The change hub over a real PostgreSQL: sequence order although numbers are taken before commit,
// no wait forever on a rolled-back number, states before and after each transaction.

let database: TestDatabase;
let acme: OntologyFixture;
let hub: ChangeHub;

beforeAll(async () => {
  database = await createTestDatabase();
  acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
  await define(database.db, acme, SALES);
  hub = await startChangeHub({ db: database.db, databaseUrl: database.url, logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await hub.stop();
  await database.drop();
});

let operation = 0;
const customer = (id: string, tier: number): Edit => ({ type: 'create', objectType: 'sales.Customer', properties: { id, tier } });

/** Runs the edits in a transaction that commits (or rolls back) only when told. */
function held(edits: Edit[]) {
  let finish!: (commit: boolean) => void;
  const decided = new Promise<boolean>((resolve) => {
    finish = resolve;
  });
  let written!: () => void;
  const wrote = new Promise<void>((resolve) => {
    written = resolve;
  });
  const done = database.db
    .transaction()
    .execute(async (trx) => {
      await writeEdits(trx, { companyId: acme.companyId, accountId: null, operationId: `op-${++operation}`, actionTypeRid: null, edits });
      written();
      if (!(await decided)) throw new Error('rolled back');
    })
    .catch(() => undefined);
  return { wrote, commit: () => finish(true), rollback: () => finish(false), done };
}

const write = (...edits: Edit[]) =>
  database.db
    .transaction()
    .execute((trx) =>
      writeEdits(trx, { companyId: acme.companyId, accountId: null, operationId: `op-${++operation}`, actionTypeRid: null, edits }),
    );

/** A listener collecting what it is given; `until(n)` waits for n changes in all. */
function collector() {
  const changes: Change[] = [];
  const waiting: { n: number; resolve: () => void }[] = [];
  const listener: ChangeListener = {
    companyId: acme.companyId,
    start: () => undefined,
    async deliver(batch) {
      changes.push(...batch.changes);
      for (const w of waiting.filter((w) => changes.length >= w.n)) w.resolve();
    },
    stopped: () => undefined,
  };
  const until = (n: number) => (changes.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve })));
  return { listener, changes, until };
}

describe('change hub', () => {
  it('delivers in sequence order when a lower number commits after a higher one', async () => {
    const c = collector();
    await hub.attach(c.listener, undefined);
    const slow = held([customer('slow', 1)]);
    await slow.wrote;
    await write(customer('fast', 2));
    // Time for the hub to see the later change (it must hold it back behind the open gap).
    await new Promise((resolve) => setTimeout(resolve, 300));
    slow.commit();
    await slow.done;
    await c.until(2);
    expect(c.changes.map((x) => x.primaryKey)).toEqual(['slow', 'fast']);
    expect(c.changes[0]!.seq).toBeLessThan(c.changes[1]!.seq);
    hub.detach(c.listener);
  });

  it('moves past a number whose transaction rolled back', async () => {
    const c = collector();
    await hub.attach(c.listener, undefined);
    const doomed = held([customer('doomed', 1)]);
    await doomed.wrote;
    await write(customer('after', 2));
    doomed.rollback();
    await doomed.done;
    await c.until(1);
    await write(customer('later', 3));
    await c.until(2);
    expect(c.changes.map((x) => x.primaryKey)).toEqual(['after', 'later']);
    hub.detach(c.listener);
  });

  it('gives each change the object before and after its transaction, and replays from a sequence number', async () => {
    const c = collector();
    await hub.attach(c.listener, undefined);
    const from = hub.position();
    await write(customer('s1', 1), { type: 'modify', objectType: 'sales.Customer', primaryKey: 's1', properties: { tier: 2 } });
    await write({ type: 'modify', objectType: 'sales.Customer', primaryKey: 's1', properties: { tier: 3 } });
    await write({ type: 'delete', objectType: 'sales.Customer', primaryKey: 's1' });
    await c.until(3);
    const states = c.changes.map((x) => [x.state, x.before?.tier ?? null, x.after?.tier ?? null]);
    expect(states).toEqual([
      ['ADDED_OR_UPDATED', null, 2],
      ['ADDED_OR_UPDATED', 2, 3],
      ['REMOVED', 3, null],
    ]);
    hub.detach(c.listener);
    const replay = collector();
    await hub.attach(replay.listener, from);
    expect(replay.changes).toEqual(c.changes);
    hub.detach(replay.listener);
  });

  it('gives every change of a transaction that wrote an object in several calls its states before and after the whole transaction', async () => {
    const c = collector();
    await hub.attach(c.listener, undefined);
    const call = (trx: Parameters<typeof writeEdits>[0], ...edits: Edit[]) =>
      writeEdits(trx, { companyId: acme.companyId, accountId: null, operationId: `op-${++operation}`, actionTypeRid: null, edits });
    const tier = (id: string, t: number): Edit => ({
      type: 'modify',
      objectType: 'sales.Customer',
      primaryKey: id,
      properties: { tier: t },
    });
    await write(customer('m1', 1), customer('m2', 1));
    await database.db.transaction().execute(async (trx) => {
      await call(trx, tier('m1', 2), tier('m1', 3));
      await call(trx, tier('m2', 5));
      await call(trx, tier('m1', 4));
    });
    await write(tier('m1', 9));
    await c.until(6);
    const states = c.changes.slice(2).map((x) => [x.primaryKey, x.before?.tier ?? null, x.after?.tier ?? null]);
    expect(states).toEqual([
      ['m1', 1, 4],
      ['m2', 1, 5],
      ['m1', 1, 4],
      ['m1', 4, 9],
    ]);
    hub.detach(c.listener);
  });
});
