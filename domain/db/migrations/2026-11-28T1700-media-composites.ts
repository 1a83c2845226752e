import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

// Composite media items (issue 30, item 7): an upload session of several parts is not written again
// as one object at its completion; its item is the ordered list of the parts' blobs, each stored
// content-addressed (and checked) when it was received. Keyed by the item's SHA-256, so an item
// uploaded again reuses the first list.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('media_composites')
    .addColumn('sha256', 'bytea', (c) => c.primaryKey())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('media_composite_parts')
    .addColumn('item_sha256', 'bytea', (c) => c.notNull().references('media_composites.sha256').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('part_sha256', 'bytea', (c) => c.notNull())
    // Where the part starts in the item: a range read finds its parts by it.
    .addColumn('start', 'bigint', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('media_composite_parts_pkey', ['item_sha256', 'position'])
    .execute();
  // The blob sweep asks whether a composite names a part (BLOB_REFERENCES).
  await db.schema.createIndex('media_composite_parts_part').on('media_composite_parts').column('part_sha256').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('media_composite_parts').execute();
  await db.schema.dropTable('media_composites').execute();
}
