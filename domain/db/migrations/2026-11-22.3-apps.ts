import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('apps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('namespace', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    /** Null for official public apps. */
    .addColumn('company_id', 'text', (c) => c.references('companies.id').onDelete('restrict'))
    /** Next build number; a counter in the row (not a sequence) so a rolled-back dry run leaves no gap. */
    .addColumn('next_build', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('test_version_id', 'text')
    .addColumn('production_version_id', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('apps_namespace_slug', ['namespace', 'slug'])
    .execute();

  // Content-addressed file store: identical bytes are stored once across versions and apps.
  await db.schema
    .createTable('blobs')
    .addColumn('sha256', 'bytea', (c) => c.primaryKey())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('app_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('build', 'integer', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('manifest', 'jsonb', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('file_count', 'integer', (c) => c.notNull())
    .addColumn('sdk_used', 'jsonb', (c) => c.notNull())
    .addColumn('skills', 'jsonb', (c) => c.notNull())
    .addColumn('warnings', 'jsonb', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('app_versions_app_version', ['app_id', 'version'])
    .addUniqueConstraint('app_versions_app_build', ['app_id', 'build'])
    .execute();

  await db.schema
    .createTable('version_files')
    .addColumn('version_id', 'text', (c) => c.notNull().references('app_versions.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('blob_sha256', 'bytea', (c) => c.notNull().references('blobs.sha256'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('version_files_pkey', ['version_id', 'path'])
    .execute();

  await db.schema
    .createTable('release_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel IN ('test', 'production')`))
    .addColumn('action', 'text', (c) => c.notNull().check(sql`action IN ('enter_test', 'publish', 'rollback')`))
    .addColumn('from_version_id', 'text', (c) => c.references('app_versions.id'))
    .addColumn('to_version_id', 'text', (c) => c.notNull().references('app_versions.id'))
    .addColumn('actor_account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('notes', 'text')
    /** Orders records of one app even within one clock tick. */
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('release_records_app_seq', ['app_id', 'seq'])
    .execute();

  await sql`ALTER TABLE apps ADD CONSTRAINT apps_test_version FOREIGN KEY (test_version_id) REFERENCES app_versions(id)`.execute(db);
  await sql`ALTER TABLE apps ADD CONSTRAINT apps_production_version FOREIGN KEY (production_version_id) REFERENCES app_versions(id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE apps DROP CONSTRAINT apps_test_version, DROP CONSTRAINT apps_production_version`.execute(db);
  for (const table of ['release_records', 'version_files', 'app_versions', 'blobs', 'apps']) await db.schema.dropTable(table).execute();
}
