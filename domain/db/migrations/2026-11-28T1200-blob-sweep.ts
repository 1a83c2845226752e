import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

// Blob collection (domain/apps/sweep-unreferenced-blobs.ts): the sweep deletes blobs no row names
// once they are older than a grace period.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The grace clock of every stored blob, in whichever store (the S3 store has no row of its own):
  // a writer sets written_at to now() before it stores or re-uses a blob, and the sweep locks the
  // row while it deletes, so a blob written or re-used meanwhile is never deleted.
  await db.schema
    .createTable('blob_writes')
    .addColumn('sha256', 'bytea', (c) => c.primaryKey())
    .addColumn('written_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // The sweep asks each referencing column whether it names a hash: an index each keeps that one
  // lookup per blob (version_files.blob_sha256 has one already).
  await sql`CREATE INDEX media_items_sha256 ON media_items (sha256)`.execute(db);
  await sql`CREATE INDEX media_upload_parts_sha256 ON media_upload_parts (sha256)`.execute(db);
  await sql`CREATE INDEX media_transformations_output ON media_transformations (output_sha256) WHERE output_sha256 IS NOT NULL`.execute(db);
  await sql`CREATE INDEX attachments_sha256 ON attachments (sha256)`.execute(db);
  await sql`CREATE INDEX world_assets_sha256 ON world_assets (sha256)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of [
    'world_assets_sha256',
    'attachments_sha256',
    'media_transformations_output',
    'media_upload_parts_sha256',
    'media_items_sha256',
  ]) {
    await db.schema.dropIndex(index).execute();
  }
  await db.schema.dropTable('blob_writes').execute();
}
