import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../../domain/errors.ts';
import { findOntologyOfCompany } from '../../../domain/ontology/repository.ts';
import { type Edit, writeEdits } from '../../../domain/ontology/write-edits.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../../support/ontology.ts';

// The one writer over a real PostgreSQL: rows in the per-type tables, revisions, edits history,
// change rows and the outbox intent, all in the caller's transaction.

let database: TestDatabase;
let acme: OntologyFixture;

beforeAll(async () => {
  database = await createTestDatabase();
  acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
  await define(database.db, acme, SALES);
});
afterAll(() => database.drop());

const write = (edits: Edit[], operationId = `op-${Math.random()}`) =>
  database.db
    .transaction()
    .execute((trx) =>
      writeEdits(trx, { companyId: acme.companyId, accountId: acme.developer.account.id, operationId, actionTypeRid: null, edits }),
    );

async function failure(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

const ORDER = {
  number: 1,
  amount: 12.5,
  paid: false,
  placed: '2026-11-22',
  at: '2026-11-22T10:00:00.000Z',
  tags: ['a', 'b'],
  address: { city: 'Oslo' },
};

describe('writeEdits', () => {
  it('creates an object with typed values and records history, change and one outbox intent', async () => {
    const result = await write([{ type: 'create', objectType: 'sales.Order', properties: ORDER }], 'op-create-1');
    expect(result.objects).toHaveLength(1);
    expect(result.objects[0]!.before).toBeNull();
    expect(result.objects[0]!.after).toMatchObject({ __apiName: 'sales.Order', __primaryKey: 1, __rev: 1, ...ORDER });
    expect(result.objects[0]!.after).not.toHaveProperty('note');

    const history = await database.db.selectFrom('ontology_edits').selectAll().where('operation_id', '=', 'op-create-1').execute();
    expect(history.map((h) => [h.primary_key, h.edit.type, h.account_id])).toEqual([['1', 'create', acme.developer.account.id]]);
    const changes = await database.db.selectFrom('ontology_changes').selectAll().where('seq', '>=', result.seq!.from).execute();
    expect(changes.map((c) => [c.primary_key, c.state])).toEqual([['1', 'ADDED_OR_UPDATED']]);
    const outbox = await database.db.selectFrom('outbox').selectAll().where('key', '=', 'op-create-1').execute();
    expect(outbox.map((o) => [o.topic, o.payload])).toEqual([
      ['ontology.changed', { companyId: acme.companyId, objectTypes: ['sales.Order'], fromSeq: result.seq!.from, toSeq: result.seq!.to }],
    ]);
  });

  it('modifies with ifRev, bumping the revision, and refuses a stale ifRev with rev_mismatch', async () => {
    await write([{ type: 'create', objectType: 'sales.Order', properties: { number: 2, amount: 1 } }]);
    const stale = await failure(write([{ type: 'modify', objectType: 'sales.Order', primaryKey: 2, properties: { amount: 3 }, ifRev: 7 }]));
    expect([stale.code, stale.details]).toEqual(['rev_mismatch', { objectType: 'sales.Order', primaryKey: 2, currentRev: 1 }]);
    const ok = await write([{ type: 'modify', objectType: 'sales.Order', primaryKey: 2, properties: { amount: 3, note: 'x' }, ifRev: 1 }]);
    expect(ok.objects[0]!.before).toMatchObject({ amount: 1, __rev: 1 });
    expect(ok.objects[0]!.after).toMatchObject({ amount: 3, note: 'x', __rev: 2 });
    const cleared = await write([{ type: 'modify', objectType: 'sales.Order', primaryKey: 2, properties: { note: null } }]);
    expect(cleared.objects[0]!.after).not.toHaveProperty('note');
  });

  it('refuses values that do not fit their property, unknown properties, and a changed primary key', async () => {
    const cases: [Edit, string, string][] = [
      [
        { type: 'create', objectType: 'sales.Order', properties: { number: 3, amount: 'much' } },
        'InvalidPropertyValue',
        'edits[0].properties.amount',
      ],
      [
        { type: 'create', objectType: 'sales.Order', properties: { number: 3, placed: '2026-02-30' } },
        'InvalidPropertyValue',
        'edits[0].properties.placed',
      ],
      [
        { type: 'create', objectType: 'sales.Order', properties: { number: 3, tags: [1] } },
        'InvalidPropertyValue',
        'edits[0].properties.tags',
      ],
      [
        { type: 'create', objectType: 'sales.Order', properties: { number: 3, address: { zip: '1' } } },
        'InvalidPropertyValue',
        'edits[0].properties.address',
      ],
      [
        { type: 'create', objectType: 'sales.Order', properties: { number: 3, color: 'red' } },
        'PropertiesNotFound',
        'edits[0].properties.color',
      ],
      [{ type: 'create', objectType: 'sales.Order', properties: { amount: 1 } }, 'InvalidPropertyValue', 'edits[0].properties.number'],
      [
        { type: 'modify', objectType: 'sales.Order', primaryKey: 1, properties: { number: 9 } },
        'PrimaryKeyCannotChange',
        'edits[0].properties.number',
      ],
    ];
    for (const [edit, errorName, path] of cases) {
      const err = await failure(write([edit]));
      expect([err.code, err.details?.errorName, (err.details!.problems as { path: string }[])[0]!.path], JSON.stringify(edit)).toEqual([
        'invalid_payload',
        errorName,
        path,
      ]);
    }
    expect((await failure(write([{ type: 'create', objectType: 'sales.Order', properties: ORDER }]))).code).toBe('conflict');
    expect((await failure(write([{ type: 'create', objectType: 'sales.Nope', properties: {} }]))).code).toBe('object_type_not_found');
  });

  it('writes a run of creates of one shape in one statement, each with its history and change, and still refuses a key twice', async () => {
    const customers = (ids: string[], more: Record<string, unknown> = {}) =>
      ids.map((id): Edit => ({ type: 'create', objectType: 'sales.Customer', properties: { id, name: `n-${id}`, ...more } }));
    const result = await write([...customers(['run-1', 'run-2', 'run-3']), ...customers(['run-4'], { tier: 2 })], 'op-run');
    expect(result.objects.map((o) => [o.primaryKey, o.before, o.after?.name, o.after?.tier])).toEqual([
      ['run-1', null, 'n-run-1', undefined],
      ['run-2', null, 'n-run-2', undefined],
      ['run-3', null, 'n-run-3', undefined],
      ['run-4', null, 'n-run-4', 2],
    ]);
    const history = await database.db
      .selectFrom('ontology_edits')
      .select(['primary_key'])
      .where('operation_id', '=', 'op-run')
      .orderBy('seq')
      .execute();
    expect(history.map((h) => h.primary_key)).toEqual(['run-1', 'run-2', 'run-3', 'run-4']);
    expect(result.seq!.to - result.seq!.from).toBe(3);

    const twice = await failure(write(customers(['run-5', 'run-5'])));
    expect(twice.details).toMatchObject({ errorName: 'ObjectAlreadyExists', primaryKey: 'run-5' });
    const existing = await failure(write(customers(['run-6', 'run-1'])));
    expect(existing.details).toMatchObject({ errorName: 'ObjectAlreadyExists', primaryKey: 'run-1' });
    const ontology = (await findOntologyOfCompany(database.db, acme.companyId))!;
    const rows =
      await sql`SELECT count(*)::int AS n FROM ${sql.id(ontology.schemaName, 'sales.Customer')} WHERE id IN ('run-5', 'run-6')`.execute(
        database.db,
      );
    expect(rows.rows).toEqual([{ n: 0 }]);
  });

  it('writes a run of modifies of one shape in one statement, each with its revision, history and change; a missing object or an ifRev keeps its error', async () => {
    const ids = ['mod-1', 'mod-2', 'mod-3'];
    await write(ids.map((id): Edit => ({ type: 'create', objectType: 'sales.Customer', properties: { id, name: `n-${id}`, tier: 1 } })));
    const rename = (id: string, name = `m-${id}`, ifRev?: number): Edit => ({
      type: 'modify',
      objectType: 'sales.Customer',
      primaryKey: id,
      properties: { name, tier: null },
      ...(ifRev === undefined ? {} : { ifRev }),
    });
    const tier = (id: string): Edit => ({ type: 'modify', objectType: 'sales.Customer', primaryKey: id, properties: { tier: 5 } });
    const result = await write([...ids.map((id) => rename(id)), tier('mod-1')], 'op-modify-run');
    expect(
      result.objects.map((o) => [o.primaryKey, o.before?.__rev, o.before?.name, o.after?.__rev, o.after?.name, o.after?.tier]),
    ).toEqual([
      ['mod-1', 1, 'n-mod-1', 3, 'm-mod-1', 5],
      ['mod-2', 1, 'n-mod-2', 2, 'm-mod-2', undefined],
      ['mod-3', 1, 'n-mod-3', 2, 'm-mod-3', undefined],
    ]);
    const history = await database.db
      .selectFrom('ontology_edits')
      .select(['primary_key', 'edit'])
      .where('operation_id', '=', 'op-modify-run')
      .orderBy('seq')
      .execute();
    type State = { __rev: number; tier?: number } | null;
    const states = history.map((h) => ({
      key: h.primary_key,
      type: h.edit.type,
      before: h.edit.before as State,
      after: h.edit.after as State,
    }));
    expect(states.map((h) => [h.key, h.type, h.before?.__rev, h.after?.__rev, h.after?.tier])).toEqual([
      ['mod-1', 'modify', 1, 2, undefined],
      ['mod-2', 'modify', 1, 2, undefined],
      ['mod-3', 'modify', 1, 2, undefined],
      ['mod-1', 'modify', 2, 3, 5],
    ]);
    expect(result.seq!.to - result.seq!.from).toBe(2);

    const missing = await failure(write([rename('mod-2', 'x'), rename('mod-9', 'x')]));
    expect([missing.code, missing.details?.primaryKey]).toEqual(['object_not_found', 'mod-9']);
    const stale = await failure(write([rename('mod-2', 'y'), rename('mod-3', 'y', 1)]));
    expect([stale.code, stale.details?.primaryKey]).toEqual(['rev_mismatch', 'mod-3']);
    const ontology = (await findOntologyOfCompany(database.db, acme.companyId))!;
    const rows = await sql<{
      id: string;
      name: string;
      rev: string;
    }>`SELECT id, name, __rev AS rev FROM ${sql.id(ontology.schemaName, 'sales.Customer')}
      WHERE id IN ('mod-2', 'mod-3') ORDER BY id`.execute(database.db);
    expect(rows.rows.map((r) => [r.id, r.name, Number(r.rev)])).toEqual([
      ['mod-2', 'm-mod-2', 2],
      ['mod-3', 'm-mod-3', 2],
    ]);
  });

  it('keeps a media reference as jsonb and refuses one that is not a MediaReference', async () => {
    await define(database.db, acme, {
      types: [
        {
          apiName: 'vision.Photo',
          primaryKey: 'id',
          properties: { id: { dataType: { type: 'string' } }, image: { dataType: { type: 'mediaReference' } } },
        },
      ],
    });
    const image = {
      mimeType: 'image/png',
      reference: {
        type: 'mediaSetViewItem',
        mediaSetViewItem: {
          mediaSetRid: 'ri.mio.svc.media-set.a',
          mediaSetViewRid: 'ri.mio.svc.view.a',
          mediaItemRid: 'ri.mio.svc.media-item.a',
        },
      },
    };
    await write([{ type: 'create', objectType: 'vision.Photo', properties: { id: 'p1', image } }]);
    const ontology = (await findOntologyOfCompany(database.db, acme.companyId))!;
    const rows = await sql<{ image: unknown }>`SELECT image FROM ${sql.id(ontology.schemaName, 'vision.Photo')}`.execute(database.db);
    expect(rows.rows).toEqual([{ image }]);
    const err = await failure(
      write([{ type: 'create', objectType: 'vision.Photo', properties: { id: 'p2', image: { ...image, reference: { type: 'other' } } } }]),
    );
    expect([err.details?.errorName, (err.details!.problems as { path: string }[])[0]!.path]).toEqual([
      'InvalidPropertyValue',
      'edits[0].properties.image',
    ]);
  });

  it('rolls back every edit of a call when one fails', async () => {
    const err = await failure(
      write([
        { type: 'create', objectType: 'sales.Customer', properties: { id: 'c-rollback' } },
        { type: 'delete', objectType: 'sales.Order', primaryKey: 404 },
      ]),
    );
    expect(err.code).toBe('object_not_found');
    const ontology = (await findOntologyOfCompany(database.db, acme.companyId))!;
    const rows = await sql`SELECT count(*)::int AS n FROM ${sql.id(ontology.schemaName, 'sales.Customer')} WHERE id = 'c-rollback'`.execute(
      database.db,
    );
    expect(rows.rows).toEqual([{ n: 0 }]);
  });

  it('links objects within the cardinality and deletes an object with its links', async () => {
    await write([
      { type: 'create', objectType: 'sales.Customer', properties: { id: 'c1', name: 'Ada' } },
      { type: 'create', objectType: 'sales.Customer', properties: { id: 'c2', name: 'Bob' } },
      { type: 'create', objectType: 'sales.Order', properties: { number: 10 } },
      { type: 'addLink', linkType: 'order-customer', source: 10, target: 'c1' },
    ]);
    // An order has ONE customer.
    const second = await failure(write([{ type: 'addLink', linkType: 'order-customer', source: 10, target: 'c2' }]));
    expect([second.code, second.details?.errorName]).toEqual(['conflict', 'LinkCardinalityExceeded']);
    // Adding the same link again changes nothing; a missing object cannot be linked.
    await write([{ type: 'addLink', linkType: 'order-customer', source: 10, target: 'c1' }]);
    expect((await failure(write([{ type: 'addLink', linkType: 'order-customer', source: 11, target: 'c1' }]))).code).toBe(
      'object_not_found',
    );

    const removed = await write([{ type: 'delete', objectType: 'sales.Customer', primaryKey: 'c1' }]);
    expect(removed.objects[0]).toMatchObject({ before: { name: 'Ada' }, after: null });
    const links = await database.db.selectFrom('object_links').selectAll().execute();
    expect(links).toEqual([]);
    const change = await database.db
      .selectFrom('ontology_changes')
      .select('state')
      .where('seq', '=', removed.seq!.to)
      .executeTakeFirstOrThrow();
    expect(change.state).toBe('REMOVED');
  });

  it('serializes concurrent writers of one object: each sees the state the previous one left', async () => {
    await write([{ type: 'create', objectType: 'sales.Order', properties: { number: 50, amount: 0 } }]);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        write([{ type: 'modify', objectType: 'sales.Order', primaryKey: 50, properties: { note: `w${i}` } }]),
      ),
    );
    const chain = results.map((r) => r.objects[0]!).sort((a, b) => a.after!.__rev - b.after!.__rev);
    expect(chain.map((c) => c.after!.__rev)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    // Every writer's before is exactly the previous writer's after.
    for (const [i, c] of chain.entries()) {
      expect(c.before).toEqual(i === 0 ? expect.objectContaining({ __rev: 1 }) : chain[i - 1]!.after);
    }
  });
});
