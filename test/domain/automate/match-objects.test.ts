import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../domain/deps.ts';
import { editObjects } from '../../../domain/ontology/edit-objects.ts';
import { matchObjects } from '../../../domain/ontology/match-objects.ts';
import { findObjectTypeRecord, findOntologyOfCompany } from '../../../domain/ontology/repository.ts';
import { withStates } from '../../../domain/ontology/subscriptions/change-hub.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../../support/ontology.ts';

let database: TestDatabase;
let f: OntologyFixture;

beforeAll(async () => {
  database = await createTestDatabase();
  f = await insertCompanyWithDeveloper(database.db, 'cell-match');
  await define(database.db, f, SALES);
});
afterAll(async () => {
  await database?.drop();
});

describe('matchObjects', () => {
  it('judges change states by the where compiler', async () => {
    const { db } = database;
    await db.transaction().execute((trx) =>
      editObjects({ db: trx, clock: systemClock }, f.developer, f.cellId, {
        edits: [{ type: 'create', objectType: 'sales.Order', properties: { number: 1, amount: 5, tags: ['a'], address: { city: 'X' } } }],
      }),
    );
    const rows = await db.selectFrom('ontology_changes').select(['seq', 'company_id', 'object_type_id', 'primary_key', 'state']).execute();
    const states = await withStates(
      db,
      rows.map((r) => ({ ...r, seq: Number(r.seq) })),
    );
    const ontology = (await findOntologyOfCompany(db, f.companyId))!;
    const type = (await findObjectTypeRecord(db, ontology.id, 'sales.Order'))!;
    const objects = states.map((s) => s.after!);
    expect(await matchObjects(db, ontology, type, { type: 'gt', field: 'amount', value: 1 }, objects)).toEqual([true]);
  });
});
