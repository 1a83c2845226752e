import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../../domain/errors.ts';
import { defineObjectTypes } from '../../../domain/ontology/define-object-types.ts';
import { findObjectTypeRecord, findOntologyOfCompany } from '../../../domain/ontology/repository.ts';
import { writeEdits } from '../../../domain/ontology/write-edits.ts';
import type { ObjectTypeDefinition } from '../../../schemas/ontology.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../../support/ontology.ts';

// Definitions over a real PostgreSQL: the per-company schema and per-type tables, versions, and
// the refusal of changes that would lose stored values.

let database: TestDatabase;
let acme: OntologyFixture;

beforeAll(async () => {
  database = await createTestDatabase();
  acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
});
afterAll(() => database.drop());

async function failure(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

const columns = async (table: string) => {
  const ontology = (await findOntologyOfCompany(database.db, acme.companyId))!;
  const rows = await sql<{ column_name: string; data_type: string }>`
    SELECT column_name, data_type FROM information_schema.columns
    WHERE table_schema = ${ontology.schemaName} AND table_name = ${table} ORDER BY column_name`.execute(database.db);
  return Object.fromEntries(rows.rows.map((r) => [r.column_name, r.data_type]));
};

/** The columns of a type's table that have an index of their own (besides the primary key). */
const indexed = async (table: string) => {
  const ontology = (await findOntologyOfCompany(database.db, acme.companyId))!;
  const rows = await sql<{ column: string }>`
    SELECT a.attname AS column FROM pg_index i
    JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
    WHERE n.nspname = ${ontology.schemaName} AND t.relname = ${table} AND NOT i.indisprimary
    ORDER BY 1`.execute(database.db);
  return rows.rows.map((r) => r.column);
};

const customer = (properties: ObjectTypeDefinition['properties']): ObjectTypeDefinition => ({
  apiName: 'sales.Customer',
  primaryKey: 'id',
  properties,
});

describe('defineObjectTypes', () => {
  it('makes the company schema and one typed table per type, and leaves a repeated batch unchanged', async () => {
    const first = await define(database.db, acme, SALES);
    expect(first.types.map((t) => [t.apiName, t.version, t.change])).toEqual([
      ['sales.Customer', 1, 'created'],
      ['sales.Order', 1, 'created'],
    ]);
    expect(first.linkTypes.map((l) => [l.apiName, l.change])).toEqual([['order-customer', 'created']]);
    expect(await columns('sales.Order')).toEqual({
      __rev: 'bigint',
      __updated_at: 'timestamp with time zone',
      address: 'jsonb',
      amount: 'double precision',
      at: 'timestamp with time zone',
      note: 'text',
      number: 'bigint',
      paid: 'boolean',
      placed: 'date',
      tags: 'jsonb',
    });
    // Every scalar property but the key is indexed for search; arrays and structs (jsonb) are not.
    expect(await indexed('sales.Order')).toEqual(['amount', 'at', 'note', 'paid', 'placed']);
    const again = await define(database.db, acme, SALES);
    expect(again.types.map((t) => [t.version, t.change])).toEqual([
      [1, 'unchanged'],
      [1, 'unchanged'],
    ]);
    expect(again.linkTypes.map((l) => l.change)).toEqual(['unchanged']);
  });

  it('versions each change: adding a property adds a nullable column', async () => {
    const props = { ...SALES.types![0]!.properties, email: { dataType: { type: 'string' as const } } };
    const result = await define(database.db, acme, { types: [customer(props)] });
    expect(result.types[0]).toMatchObject({ version: 2, change: 'changed' });
    expect(await columns('sales.Customer')).toHaveProperty('email', 'text');
    expect(await indexed('sales.Customer')).toEqual(['email', 'name', 'tier']);
    const type = (await findObjectTypeRecord(
      database.db,
      (await findOntologyOfCompany(database.db, acme.companyId))!.id,
      'sales.Customer',
    ))!;
    const versions = await database.db
      .selectFrom('object_type_versions')
      .select(['version', 'definition'])
      .where('object_type_id', '=', type.id)
      .orderBy('version')
      .execute();
    expect(versions.map((v) => [v.version, Object.keys(v.definition.properties as object).sort()])).toEqual([
      [1, ['id', 'name', 'tier']],
      [2, ['email', 'id', 'name', 'tier']],
    ]);
  });

  it('refuses removing or retyping a property that stored objects hold, and allows it when none do', async () => {
    await database.db.transaction().execute((trx) =>
      writeEdits(trx, {
        companyId: acme.companyId,
        accountId: null,
        operationId: 'op-define-test',
        actionTypeRid: null,
        edits: [{ type: 'create', objectType: 'sales.Customer', properties: { id: 'c1', tier: 3 } }],
      }),
    );
    const { tier: _tier, ...withoutTierAndEmail }: ObjectTypeDefinition['properties'] = { ...SALES.types![0]!.properties };
    const err = await failure(
      define(database.db, acme, { types: [customer({ ...withoutTierAndEmail, email: { dataType: { type: 'long' } } })] }),
    );
    expect([err.code, err.details]).toEqual([
      'definition_breaking_change',
      { objectType: 'sales.Customer', properties: [{ property: 'tier', change: 'removed', objectsWithValues: 1 }] },
    ]);
    // email holds no value: retyping it is fine (tier stays).
    const ok = await define(database.db, acme, {
      types: [customer({ ...withoutTierAndEmail, tier: { dataType: { type: 'integer' } }, email: { dataType: { type: 'long' } } })],
    });
    expect(ok.types[0]).toMatchObject({ version: 3, change: 'changed' });
    expect(await columns('sales.Customer')).toMatchObject({ email: 'bigint', tier: 'integer' });
    // The retyped column keeps exactly one index.
    expect(await indexed('sales.Customer')).toEqual(['email', 'name', 'tier']);
  });

  it('refuses invalid definitions with 422 problems and a Foundry-like errorName', async () => {
    const bad = await failure(
      define(database.db, acme, {
        types: [{ apiName: 'sales.Bad', primaryKey: 'missing', properties: { id: { dataType: { type: 'string' } } } }],
      }),
    );
    expect(bad.code).toBe('definition_invalid');
    expect(bad.details).toMatchObject({ errorName: 'InvalidDefinition', problems: [{ path: 'types[0].primaryKey' }] });
    const pk = await failure(define(database.db, acme, { types: [{ ...customer(SALES.types![0]!.properties), primaryKey: 'name' }] }));
    expect([pk.code, pk.details?.errorName]).toEqual(['definition_invalid', 'PrimaryKeyCannotChange']);
    const link = await failure(
      define(database.db, acme, {
        linkTypes: [
          {
            apiName: 'x',
            source: { objectType: 'sales.Order', linkApiName: 'customer', cardinality: 'MANY' },
            target: { objectType: 'sales.Nope', linkApiName: 'y', cardinality: 'MANY' },
          },
        ],
      }),
    );
    expect([link.code, link.details?.errorName]).toEqual(['definition_invalid', 'ObjectTypeNotFound']);
    const dup = await failure(
      define(database.db, acme, {
        linkTypes: [
          {
            apiName: 'x',
            source: { objectType: 'sales.Order', linkApiName: 'customer', cardinality: 'MANY' },
            target: { objectType: 'sales.Customer', linkApiName: 'y', cardinality: 'MANY' },
          },
        ],
      }),
    );
    expect([dup.code, dup.details?.errorName]).toEqual(['definition_invalid', 'DuplicateLinkName']);
  });

  it('leaves nothing behind when the defining transaction rolls back (DDL is transactional)', async () => {
    const rolledBack = new Error('rolled back');
    await expect(
      database.db.transaction().execute(async (trx) => {
        await defineObjectTypes({ db: trx, clock: { now: () => new Date() } }, acme.developer, acme.cellId, {
          types: [{ apiName: 'sales.Ghost', primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } }],
        });
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect(await columns('sales.Ghost')).toEqual({});
    expect(await database.db.selectFrom('object_types').select('id').where('api_name', '=', 'sales.Ghost').execute()).toEqual([]);
  });
});
