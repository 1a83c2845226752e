import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Attachments (issue 30, item 3): a file of a company, its bytes in the content store by SHA-256.
  await db.schema
    .createTable('attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('media_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'bytea', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // The removal of unused attachments walks them by age.
  await db.schema.createIndex('attachments_created_at').on('attachments').column('created_at').execute();

  // Which object's attachment property holds which attachment: one row per object and property,
  // kept in step with the objects by the one writer (an attachment without rows is unused).
  await db.schema
    .createTable('attachment_links')
    .addColumn('object_type_id', 'text', (c) => c.notNull().references('object_types.id').onDelete('cascade'))
    .addColumn('primary_key', 'text', (c) => c.notNull())
    .addColumn('property', 'text', (c) => c.notNull())
    .addColumn('attachment_id', 'text', (c) => c.notNull().references('attachments.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('attachment_links_pk', ['object_type_id', 'primary_key', 'property'])
    .execute();
  await db.schema.createIndex('attachment_links_attachment').on('attachment_links').column('attachment_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('attachment_links').execute();
  await db.schema.dropTable('attachments').execute();
}
