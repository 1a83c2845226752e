import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectDatabase } from '../../../domain/db/connect.ts';
import { migrations } from '../../../domain/db/migrations/index.ts';
import { urlFor } from '../../support/postgres-urls.ts';

// Migration 2026-11-28T1800-ontology-history-writes stores the edits history as json and names
// each change's last edit on its row: history written before it reads back the same, each change
// row gets the last edit of its transaction, and down restores jsonb and the index by transaction.

const name = `svc_test_${randomBytes(6).toString('hex')}`;
let db: Kysely<any>;
let migrator: Migrator;
const adminUrl = () => inject('postgresAdminUrl');
const EDIT = {
  type: 'modify',
  before: { __apiName: 'a.B', __rev: 1, note: 'x "quoted"' },
  after: { __apiName: 'a.B', __rev: 2, n: [1, { s: null }] },
};

/** One edit of object `key` and, with `change`, its change row, in one transaction; the edit's seq. */
async function write(key: string, change: boolean): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const edit = await sql<{ seq: number }>`INSERT INTO ontology_edits (object_type_id, primary_key, operation_id, edit)
      VALUES ('oty_1', ${key}, 'ope_1', ${JSON.stringify(EDIT)}::jsonb) RETURNING seq`.execute(trx);
    if (change) {
      await sql`INSERT INTO ontology_changes (company_id, object_type_id, primary_key, state) VALUES ('cmp_1', 'oty_1', ${key}, 'ADDED_OR_UPDATED')`.execute(
        trx,
      );
    }
    return Number(edit.rows[0]!.seq);
  });
}

let firstEdits: number[];

beforeAll(async () => {
  const admin = connectDatabase({ connectionString: adminUrl(), maxConnections: 1 });
  await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin);
  await admin.destroy();
  db = connectDatabase({ connectionString: urlFor(adminUrl(), name), maxConnections: 2 });
  migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  expect((await migrator.migrateTo('2026-11-28T1300-ontology-history-checks')).error).toBeUndefined();
  firstEdits = [await write('1', true), await write('2', true), await write('1', false)];
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
      SELECT pg_typeof(edit)::text AS type, edit, edit->'before' AS before, edit->'after' AS after FROM ontology_edits ORDER BY seq LIMIT 1`.execute(
      db,
    )
  ).rows[0]!;
const indexes = async () =>
  (await sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE tablename = 'ontology_edits' ORDER BY 1`.execute(db)).rows.map(
    (r) => r.indexname,
  );

describe('2026-11-28T1800-ontology-history-writes', () => {
  it('keeps the history written before it and names each change’s last edit of its transaction', async () => {
    expect((await migrator.migrateTo('2026-11-28T1800-ontology-history-writes')).error).toBeUndefined();
    expect(await read()).toEqual({ type: 'json', edit: EDIT, before: EDIT.before, after: EDIT.after });
    const changes = await sql<{
      primary_key: string;
      edit_seq: number;
    }>`SELECT primary_key, edit_seq FROM ontology_changes ORDER BY seq`.execute(db);
    expect(changes.rows.map((r) => [r.primary_key, Number(r.edit_seq)])).toEqual([
      ['1', firstEdits[0]],
      ['2', firstEdits[1]],
    ]);
    expect(await indexes()).not.toContain('ontology_edits_xact');
  });

  it('goes down to jsonb with the same values and the index by transaction', async () => {
    expect((await migrator.migrateTo('2026-11-28T1300-ontology-history-checks')).error).toBeUndefined();
    expect(await read()).toEqual({ type: 'jsonb', edit: EDIT, before: EDIT.before, after: EDIT.after });
    expect(await indexes()).toContain('ontology_edits_xact');
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
});
