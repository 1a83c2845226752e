import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../domain/deps.ts';
import { editObjects } from '../../../domain/ontology/edit-objects.ts';
import { matchObjects } from '../../../domain/ontology/match-objects.ts';
import {
  findObjectTypeRecord,
  findOntologyOfCompany,
  type ObjectTypeRecord,
  type OntologyRecord,
} from '../../../domain/ontology/repository.ts';
import { type Change, withStates } from '../../../domain/ontology/subscriptions/change-hub.ts';
import type { OntologyObject, WhereClause } from '../../../schemas/ontology.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../../support/ontology.ts';

// Automations judge a change by its object's state after the change (before it, when removed), with
// the ontology's where compiler over a row built from that state: the same answers as a search.

let database: TestDatabase;
let f: OntologyFixture;
let ontology: OntologyRecord;
let type: ObjectTypeRecord;
let changes: Change[];

beforeAll(async () => {
  database = await createTestDatabase();
  const { db } = database;
  f = await insertCompanyWithDeveloper(db, 'cell-match');
  await define(db, f, SALES);
  const edit = (edits: Parameters<typeof editObjects>[3]['edits']) =>
    db.transaction().execute((trx) => editObjects({ db: trx, clock: systemClock }, f.developer, f.cellId, { edits }));
  await edit([
    { type: 'create', objectType: 'sales.Order', properties: { number: 1, amount: 5, tags: ['a'], address: { city: 'Oslo' }, note: 'n1' } },
    { type: 'create', objectType: 'sales.Order', properties: { number: 2, amount: 500, at: '2026-01-02T03:04:05Z' } },
  ]);
  await edit([{ type: 'delete', objectType: 'sales.Order', primaryKey: 1 }]);
  const rows = await db
    .selectFrom('ontology_changes')
    .select(['seq', 'company_id', 'object_type_id', 'primary_key', 'state'])
    .orderBy('seq')
    .execute();
  changes = await withStates(
    db,
    rows.map((r) => ({ ...r, seq: Number(r.seq) })),
  );
  ontology = (await findOntologyOfCompany(db, f.companyId))!;
  type = (await findObjectTypeRecord(db, ontology.id, 'sales.Order'))!;
});
afterAll(async () => {
  await database?.drop();
});

const states = () => changes.map((c) => (c.after ?? c.before) as OntologyObject);
const judge = (where: WhereClause | undefined) => matchObjects(database.db, ontology, type, where, states());

describe('matchObjects', () => {
  it('judges added objects by their state after the change and a removed one by its state before', async () => {
    expect(changes.map((c) => [c.primaryKey, c.before === null, c.after === null])).toEqual([
      ['1', true, false],
      ['2', true, false],
      ['1', false, true],
    ]);
    expect(await judge(undefined)).toEqual([true, true, true]);
    expect(await judge({ type: 'gte', field: 'amount', value: 100 })).toEqual([false, true, false]);
    expect(await judge({ type: 'contains', field: 'tags', value: 'a' })).toEqual([true, false, true]);
    expect(await judge({ type: 'isNull', field: 'note', value: true })).toEqual([false, true, false]);
    expect(await judge({ type: 'gt', field: 'at', value: '2026-01-01T00:00:00Z' })).toEqual([false, true, false]);
    expect(
      await judge({
        type: 'or',
        value: [
          { type: 'startsWith', field: 'note', value: 'n' },
          { type: 'not', value: { type: 'lt', field: 'amount', value: 100 } },
        ],
      }),
    ).toEqual([true, true, true]);
  });

  it('refuses a clause the type cannot answer as query_invalid, with or without objects', async () => {
    for (const objects of [[], states()]) {
      await expect(matchObjects(database.db, ontology, type, { type: 'gt', field: 'tags', value: 1 }, objects)).rejects.toMatchObject({
        code: 'query_invalid',
      });
      await expect(
        matchObjects(database.db, ontology, type, { type: 'eq', field: 'constructor', value: 1 }, objects),
      ).rejects.toMatchObject({
        code: 'query_invalid',
      });
    }
  });
});
