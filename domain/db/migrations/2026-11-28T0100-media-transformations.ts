import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Media transformation jobs, which are also their cache: the id is the SHA-256 of the input's
  // hash and the transformation, so the same request on the same bytes finds the job done. The
  // result's bytes are in the content store by their own hash. A job that failed keeps why.
  await db.schema
    .createTable('media_transformations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('input_sha256', 'bytea', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('SUCCESSFUL', 'FAILED')`))
    .addColumn('output_sha256', 'bytea')
    .addColumn('output_mime_type', 'text')
    .addColumn('output_size', 'bigint')
    .addColumn('failure', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('media_transformations').execute();
}
