import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectDatabase } from '../../../domain/db/connect.ts';
import { migrations } from '../../../domain/db/migrations/index.ts';
import { urlFor } from '../../support/postgres-urls.ts';

// Migration 2026-11-28T1300-ontology-history-checks drops the per-row foreign-key checks of the
// edits history and change rows; deleting a company or an object type still takes its rows.

const name = `svc_test_${randomBytes(6).toString('hex')}`;
let db: Kysely<any>;
const adminUrl = () => inject('postgresAdminUrl');

beforeAll(async () => {
  const admin = connectDatabase({ connectionString: adminUrl(), maxConnections: 1 });
  await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin);
  await admin.destroy();
  db = connectDatabase({ connectionString: urlFor(adminUrl(), name), maxConnections: 2 });
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  expect((await migrator.migrateTo('2026-11-28T1300-ontology-history-checks')).error).toBeUndefined();
}, 60_000);
afterAll(async () => {
  await db?.destroy();
  const admin = connectDatabase({ connectionString: adminUrl(), maxConnections: 1 });
  await sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`.execute(admin);
  await admin.destroy();
});

const rows = async (table: string, column: string, id: string) =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${id}`.execute(db)).rows[0]!.n);

async function seed(company: string, types: string[]) {
  await sql`INSERT INTO companies (id, cell_id, name) VALUES (${company}, ${`cell-${company}`}, ${company})`.execute(db);
  await sql`INSERT INTO ontologies (id, company_id, schema_name) VALUES (${`ont_${company}`}, ${company}, ${`ontology_${company}`})`.execute(
    db,
  );
  for (const type of types) {
    await sql`INSERT INTO object_types (id, ontology_id, api_name, display_name, plural_display_name, primary_key, title_property, properties, version)
      VALUES (${type}, ${`ont_${company}`}, ${type}, ${type}, ${type}, 'id', 'id', '{}', 1)`.execute(db);
    await sql`INSERT INTO ontology_edits (object_type_id, primary_key, operation_id, edit) VALUES (${type}, '1', 'ope_1', '{}')`.execute(
      db,
    );
    await sql`INSERT INTO ontology_changes (company_id, object_type_id, primary_key, state)
      VALUES (${company}, ${type}, '1', 'ADDED_OR_UPDATED')`.execute(db);
  }
}

describe('2026-11-28T1300-ontology-history-checks', () => {
  it('a deleted object type takes its edits history and change rows, and no other type’s', async () => {
    await seed('cmp_a', ['oty_a1', 'oty_a2']);
    await sql`DELETE FROM object_types WHERE id = 'oty_a1'`.execute(db);
    expect([await rows('ontology_edits', 'object_type_id', 'oty_a1'), await rows('ontology_changes', 'object_type_id', 'oty_a1')]).toEqual([
      0, 0,
    ]);
    expect([await rows('ontology_edits', 'object_type_id', 'oty_a2'), await rows('ontology_changes', 'object_type_id', 'oty_a2')]).toEqual([
      1, 1,
    ]);
  });

  it('a deleted company takes its change rows and, through its object types, its edits history', async () => {
    await seed('cmp_b', ['oty_b1']);
    await seed('cmp_c', ['oty_c1']);
    await sql`DELETE FROM companies WHERE id = 'cmp_b'`.execute(db);
    expect([await rows('ontology_changes', 'company_id', 'cmp_b'), await rows('ontology_edits', 'object_type_id', 'oty_b1')]).toEqual([
      0, 0,
    ]);
    expect([await rows('ontology_changes', 'company_id', 'cmp_c'), await rows('ontology_edits', 'object_type_id', 'oty_c1')]).toEqual([
      1, 1,
    ]);
  });

  it('goes down to the foreign keys it replaced', async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('2026-11-28T0900-automations')).error).toBeUndefined();
    const insert = sql`INSERT INTO ontology_changes (company_id, object_type_id, primary_key, state) VALUES ('cmp_none', 'oty_c1', '1', 'REMOVED')`;
    await expect(insert.execute(db)).rejects.toThrow(/foreign key/);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
});
