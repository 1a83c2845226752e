import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The writing transaction of every edits-history row and change row (filled by the default, so
  // the one writer needs no change): a change's object before and after its transaction are the
  // first `before` and the last `after` of the edits of that transaction, and the subscription
  // feed tells a change still being committed from one that never will be by its transaction.
  for (const table of ['ontology_edits', 'ontology_changes']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN xact xid8 NOT NULL DEFAULT pg_current_xact_id()`.execute(db);
  }
  await db.schema.createIndex('ontology_edits_xact').on('ontology_edits').columns(['object_type_id', 'primary_key', 'xact']).execute();
  // Retention trims changes by age.
  await db.schema.createIndex('ontology_changes_at').on('ontology_changes').column('at').execute();
  // How far retention has trimmed: a subscription resuming at or below it may have lost changes
  // and is told to reload (refreshObjectSet). One row.
  await db.schema
    .createTable('ontology_changes_trimmed')
    .addColumn('id', 'boolean', (c) => c.primaryKey().defaultTo(true).check(sql`id`))
    .addColumn('through_seq', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO ontology_changes_trimmed (through_seq) VALUES (0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ontology_changes_trimmed').execute();
  await db.schema.dropIndex('ontology_changes_at').execute();
  await db.schema.dropIndex('ontology_edits_xact').execute();
  for (const table of ['ontology_edits', 'ontology_changes']) {
    await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN xact`.execute(db);
  }
}
