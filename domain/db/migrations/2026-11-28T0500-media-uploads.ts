import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The media set of each media property, made at the property's first upload.
  await db.schema
    .createTable('media_property_sets')
    .addColumn('object_type_id', 'text', (c) => c.notNull().references('object_types.id').onDelete('cascade'))
    .addColumn('property', 'text', (c) => c.notNull())
    .addColumn('media_set_id', 'text', (c) => c.notNull().references('media_sets.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('media_property_sets_pk', ['object_type_id', 'property'])
    .execute();

  // Upload sessions into a media property: parts arrive in any order while OPEN; completing
  // assembles them (COMPLETING) into an item of the property's set (COMPLETED); deleting purges them (PURGED).
  await db.schema
    .createTable('media_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('object_type_id', 'text', (c) => c.notNull().references('object_types.id').onDelete('cascade'))
    .addColumn('property', 'text', (c) => c.notNull())
    .addColumn('media_set_id', 'text', (c) => c.notNull().references('media_sets.id').onDelete('cascade'))
    // The object whose property the completion sets, as JSON (a string or a number); null: the caller sets it with the returned reference.
    .addColumn('primary_key', 'text')
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('OPEN', 'COMPLETING', 'COMPLETED', 'PURGED')`))
    .addColumn('media_item_id', 'text')
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // A part by number; its bytes are in the content store by SHA-256. Re-sending a number replaces it while OPEN.
  await db.schema
    .createTable('media_upload_parts')
    .addColumn('upload_id', 'text', (c) => c.notNull().references('media_uploads.id').onDelete('cascade'))
    .addColumn('part_number', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'bytea', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('media_upload_parts_pk', ['upload_id', 'part_number'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('media_upload_parts').execute();
  await db.schema.dropTable('media_uploads').execute();
  await db.schema.dropTable('media_property_sets').execute();
}
