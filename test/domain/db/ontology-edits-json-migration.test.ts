import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectDatabase } from '../../../domain/db/connect.ts';
import { migrations } from '../../../domain/db/migrations/index.ts';
import { urlFor } from '../../support/postgres-urls.ts';

// Migration 2026-11-28T1800-ontology-edits-json stores the edits history as json: rows written
// before it read back the same, whole and by their `before` and `after`, and down restores jsonb.

const name = `svc_test_${randomBytes(6).toString('hex')}`;
let db: Kysely<any>;
let migrator: Migrator;
const adminUrl = () => inject('postgresAdminUrl');
const EDIT = {
  type: 'modify',
  before: { __apiName: 'a.B', __rev: 1, note: 'x "quoted"' },
  after: { __apiName: 'a.B', __rev: 2, n: [1, { s: null }] },
};

beforeAll(async () => {
  const admin = connectDatabase({ connectionString: adminUrl(), maxConnections: 1 });
  await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin);
  await admin.destroy();
  db = connectDatabase({ connectionString: urlFor(adminUrl(), name), maxConnections: 2 });
  migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  expect((await migrator.migrateTo('2026-11-28T1300-ontology-history-checks')).error).toBeUndefined();
  await sql`INSERT INTO ontology_edits (object_type_id, primary_key, operation_id, edit) VALUES ('oty_1', '1', 'ope_1', ${JSON.stringify(EDIT)}::jsonb)`.execute(
    db,
  );
}, 60_000);
afterAll(async () => {
  await db?.destroy();
  const admin = connectDatabase({ connectionString: adminUrl(), maxConnections: 1 });
  await sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`.execute(admin);
  await admin.destroy();
});

const read = async () =>
  (
    await sql<{ type: string; edit: unknown; before: unknown; after: unknown }>`
      SELECT pg_typeof(edit)::text AS type, edit, edit->'before' AS before, edit->'after' AS after FROM ontology_edits`.execute(db)
  ).rows[0]!;

describe('2026-11-28T1800-ontology-edits-json', () => {
  it('keeps the history written before it, read whole and by its states', async () => {
    expect((await migrator.migrateTo('2026-11-28T1800-ontology-edits-json')).error).toBeUndefined();
    expect(await read()).toEqual({ type: 'json', edit: EDIT, before: EDIT.before, after: EDIT.after });
  });

  it('goes down to jsonb with the same values', async () => {
    expect((await migrator.migrateTo('2026-11-28T1300-ontology-history-checks')).error).toBeUndefined();
    expect(await read()).toEqual({ type: 'jsonb', edit: EDIT, before: EDIT.before, after: EDIT.after });
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
});
