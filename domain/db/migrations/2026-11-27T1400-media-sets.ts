import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Media sets (generic resources `ri.mio.svc.media-set.<id>`): a schema (the kind of media they
  // hold) and, optionally, the MIME types they accept.
  await db.schema
    .createTable('media_sets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('schema', 'text', (c) => c.notNull().check(sql`schema IN ('image', 'audio', 'video', 'document', 'any')`))
    .addColumn('allowed_mime_types', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('media_sets_company').on('media_sets').columns(['company_id', 'id']).execute();

  // Branches of a set (main is made with the set); `view_rid` names the branch's live view.
  await db.schema
    .createTable('media_set_branches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('media_set_id', 'text', (c) => c.notNull().references('media_sets.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('view_id', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('media_set_branches_name', ['media_set_id', 'name'])
    .execute();

  // Transactions: at most one open per branch (the partial unique index is the rule).
  await db.schema
    .createTable('media_set_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('branch_id', 'text', (c) => c.notNull().references('media_set_branches.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('OPEN', 'COMMITTED', 'ABORTED')`))
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('closed_at', 'timestamptz')
    .execute();
  await sql`CREATE UNIQUE INDEX media_set_transactions_open ON media_set_transactions (branch_id) WHERE state = 'OPEN'`.execute(db);

  // Items: bytes by SHA-256 in the blob store. An item put in a transaction is staged (not
  // visible) until the commit; one visible item per branch and path, one staged per transaction and path.
  await db.schema
    .createTable('media_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('branch_id', 'text', (c) => c.notNull().references('media_set_branches.id').onDelete('cascade'))
    .addColumn('transaction_id', 'text', (c) => c.references('media_set_transactions.id').onDelete('cascade'))
    .addColumn('visible', 'boolean', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('sha256', 'bytea', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`CREATE UNIQUE INDEX media_items_visible_path ON media_items (branch_id, path) WHERE visible`.execute(db);
  await sql`CREATE UNIQUE INDEX media_items_staged_path ON media_items (transaction_id, path) WHERE NOT visible`.execute(db);
  await sql`CREATE INDEX media_items_listing ON media_items (branch_id, path, id) WHERE visible`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['media_items', 'media_set_transactions', 'media_set_branches', 'media_sets']) {
    await db.schema.dropTable(table).execute();
  }
}
