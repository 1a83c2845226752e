import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Data connections: a company's outside sources. `settings` holds what may be shown (bucket,
  // prefix, URL); `secret` what never is (a connection string, S3 keys, an Authorization value),
  // AES-256-GCM sealed under the configured key `secret_key_id`.
  await db.schema
    .createTable('data_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('postgresql', 's3', 'https')`))
    .addColumn('settings', 'jsonb', (c) => c.notNull())
    .addColumn('secret', 'bytea')
    .addColumn('secret_key_id', 'text')
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('data_connections_name', ['company_id', 'name'])
    .execute();

  // Syncs: one source (table, file pattern, endpoint) into one object type. `cursor` is the
  // incremental position committed with the last page written ({value, key}); null: from the start.
  await db.schema
    .createTable('data_syncs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('connection_id', 'text', (c) => c.notNull().references('data_connections.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('source', 'jsonb', (c) => c.notNull())
    .addColumn('mapping', 'jsonb', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode IN ('incremental', 'full')`))
    .addColumn('cursor_column', 'text')
    .addColumn('page_size', 'integer', (c) => c.notNull())
    .addColumn('schedule', 'text')
    .addColumn('cursor', 'jsonb')
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('data_syncs_name', ['company_id', 'name'])
    .execute();

  // Builds: one Temporal run each (`workflow_id`), its jobs run in `position` order.
  await db.schema
    .createTable('data_builds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('workflow_id', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')`))
    .addColumn('trigger', 'text', (c) => c.notNull().check(sql`trigger IN ('api', 'schedule')`))
    .addColumn('requested_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('data_builds_listing').on('data_builds').columns(['company_id', 'created_at', 'id']).execute();

  // One job per sync of a build; `cursor` is the page position within this job (a full refresh
  // starts from null each build), committed in the transaction of the page it follows.
  await db.schema
    .createTable('data_build_jobs')
    .addColumn('build_id', 'text', (c) => c.notNull().references('data_builds.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('sync_id', 'text', (c) => c.references('data_syncs.id').onDelete('set null'))
    .addColumn('sync_name', 'text', (c) => c.notNull())
    .addColumn('depends_on', sql`integer[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('WAITING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')`))
    .addColumn('rows_read', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rows_written', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('pages', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cursor', 'jsonb')
    .addColumn('error', 'jsonb')
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addPrimaryKeyConstraint('data_build_jobs_pk', ['build_id', 'position'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['data_build_jobs', 'data_builds', 'data_syncs', 'data_connections']) {
    await db.schema.dropTable(table).execute();
  }
}
