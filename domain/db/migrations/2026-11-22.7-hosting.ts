import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // App tickets: the credential an app page uses to call the API. Only the SHA-256 is stored.
  await db.schema
    .createTable('app_tickets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hash', 'bytea', (c) => c.notNull().unique())
    /** Never null: there are no anonymous tickets. */
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel IN ('test', 'production')`))
    .addColumn('version_id', 'text', (c) => c.notNull().references('app_versions.id').onDelete('cascade'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    /** The ticket this one renewed, for tracing a chain of renewals. */
    .addColumn('renewed_from', 'text')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('app_tickets_account').on('app_tickets').columns(['account_id']).execute();

  // usage/open records of the app log: one row per app open.
  await db.schema
    .createTable('app_opens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('version_id', 'text', (c) => c.notNull().references('app_versions.id').onDelete('cascade'))
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel IN ('test', 'production')`))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    /** The share the visitor came through; null for company access (shares arrive with the sharing issue). */
    .addColumn('via_share', 'text')
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`date_trunc('milliseconds', clock_timestamp())`))
    .execute();
  await db.schema.createIndex('app_opens_app_at').on('app_opens').columns(['app_id', 'at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('app_opens').execute();
  await db.schema.dropTable('app_tickets').execute();
}
