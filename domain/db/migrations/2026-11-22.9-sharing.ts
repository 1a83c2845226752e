import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // App shares: the whole company, a named account (any company) or a public link (login still required).
  await db.schema
    .createTable('app_shares')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('audience', 'text', (c) => c.notNull().check(sql`audience IN ('company', 'users', 'public')`))
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role IN ('editor', 'viewer')`))
    /** SHA-256 of a public link's token; the token itself is returned once and never stored. */
    .addColumn('token_hash', 'bytea', (c) => c.unique())
    .addColumn('token_prefix', 'text')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_by', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'app_shares_shape',
      sql`(audience = 'users') = (account_id IS NOT NULL) AND (audience = 'public') = (token_hash IS NOT NULL AND token_prefix IS NOT NULL)`,
    )
    .execute();
  // Repeating a company or users share changes the live one: at most one of each per target.
  await sql`CREATE UNIQUE INDEX app_shares_company ON app_shares (app_id) WHERE audience = 'company' AND revoked_at IS NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX app_shares_account ON app_shares (app_id, account_id) WHERE audience = 'users' AND revoked_at IS NULL`.execute(
    db,
  );
  await db.schema.createIndex('app_shares_account_id').on('app_shares').column('account_id').execute();

  // The app log's share/* records (spec App log event: "share and revoke; object and role"). Kept
  // apart until a general app log store exists; its reader joins them by app and time.
  await db.schema
    .createTable('app_share_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`date_trunc('milliseconds', clock_timestamp())`))
    /** `share/create`, `share/update` or `share/revoke`. */
    .addColumn('name', 'text', (c) => c.notNull().check(sql`name IN ('share/create', 'share/update', 'share/revoke')`))
    .addColumn('share_id', 'text', (c) => c.notNull())
    .addColumn('audience', 'text', (c) => c.notNull())
    /** What was shared with: the account id, the company's cell id, or the link's prefix. */
    .addColumn('object', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz')
    .addColumn('actor_account_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('app_share_records_app_at').on('app_share_records').columns(['app_id', 'at']).execute();

  // A ticket opened through a share ends with it (revoked or expired).
  await db.schema
    .alterTable('app_tickets')
    .addColumn('share_id', 'text', (c) => c.references('app_shares.id').onDelete('cascade'))
    .execute();

  // Member import: seats per company (null: no limit), the source system's id per license, names.
  await db.schema
    .alterTable('companies')
    .addColumn('seat_limit', 'integer', (c) => c.check(sql`seat_limit >= 0`))
    .execute();
  await db.schema.alterTable('licenses').addColumn('external_id', 'text').execute();
  await sql`CREATE UNIQUE INDEX licenses_external_id ON licenses (company_id, external_id) WHERE external_id IS NOT NULL`.execute(db);
  await db.schema.alterTable('accounts').addColumn('display_name', 'text').execute();

  // Invitation links that let a pending account set its first password.
  await db.schema
    .createTable('account_invitations')
    .addColumn('hash', 'bytea', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('account_invitations_account').on('account_invitations').column('account_id').execute();

  // Generic resource access: the tier a resource is at, its grants and its invitation links.
  await db.schema
    .createTable('resource_grants')
    .addColumn('rid', 'text', (c) => c.notNull())
    /** An account id, a group id, `everyone`, `internet`, `cell-<company>`, `cell-<company>:developers`, `cell-<company>:dept:<id>`. */
    .addColumn('principal', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role IN ('owner', 'editor', 'viewer')`))
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('resource_grants_pkey', ['rid', 'principal'])
    .execute();
  await db.schema.createIndex('resource_grants_principal').on('resource_grants').column('principal').execute();

  await db.schema
    .createTable('resource_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rid', 'text', (c) => c.notNull())
    .addColumn('hash', 'bytea', (c) => c.notNull().unique())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('resource_links_rid').on('resource_links').column('rid').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('resource_links').execute();
  await db.schema.dropTable('resource_grants').execute();
  await db.schema.dropTable('account_invitations').execute();
  await db.schema.alterTable('accounts').dropColumn('display_name').execute();
  await sql`DROP INDEX licenses_external_id`.execute(db);
  await db.schema.alterTable('licenses').dropColumn('external_id').execute();
  await db.schema.alterTable('companies').dropColumn('seat_limit').execute();
  await db.schema.alterTable('app_tickets').dropColumn('share_id').execute();
  await db.schema.dropTable('app_share_records').execute();
  await db.schema.dropTable('app_shares').execute();
}
