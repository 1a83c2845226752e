import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // A company's data streams (spec G "Data streams"): named push sources of records with a record
  // schema (`fields`). `last_seq`: the sequence number of the last record pushed; a push takes the
  // next numbers by updating it, which also orders concurrent pushes to one stream.
  await db.schema
    .createTable('data_streams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('fields', 'jsonb', (c) => c.notNull())
    .addColumn('last_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_pushed_at', 'timestamptz')
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('data_streams_company_name', ['company_id', 'name'])
    .execute();

  // A stream as a data source of an object type (by apiName): property → field, as a sync's mapping.
  // A stream with bindings cannot be deleted (stream_in_use); its records are written into each type.
  await db.schema
    .createTable('data_stream_bindings')
    .addColumn('stream_id', 'text', (c) => c.notNull().references('data_streams.id').onDelete('cascade'))
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('mapping', 'jsonb', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('data_stream_bindings_pk', ['stream_id', 'object_type'])
    .execute();

  // The newest records of each stream (at most STREAM_LIMITS.retainedRecords; older ones are
  // dropped by the push that passes the bound), as pushed and checked.
  await db.schema
    .createTable('data_stream_records')
    .addColumn('stream_id', 'text', (c) => c.notNull().references('data_streams.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('record', 'jsonb', (c) => c.notNull())
    .addColumn('pushed_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('pushed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('data_stream_records_pk', ['stream_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('data_stream_records').execute();
  await db.schema.dropTable('data_stream_bindings').execute();
  await db.schema.dropTable('data_streams').execute();
}
