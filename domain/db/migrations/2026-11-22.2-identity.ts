import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('active', 'pending', 'disabled')`))
    .addColumn('email_verified', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('must_change_password', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('platform_staff', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('failed_logins', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Logins are matched case-insensitively, so uniqueness is too.
  await sql`CREATE UNIQUE INDEX accounts_username_lower ON accounts (lower(username))`.execute(db);
  await sql`CREATE UNIQUE INDEX accounts_email_lower ON accounts (lower(email))`.execute(db);

  await db.schema
    .createTable('companies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('cell_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('licenses')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role IN ('developer', 'member')`))
    .addColumn('admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('licenses_pkey', ['account_id', 'company_id'])
    .execute();
  await db.schema.createIndex('licenses_company').on('licenses').column('company_id').execute();

  await db.schema
    .createTable('developer_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hash', 'bytea', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role IN ('developer', 'member')`))
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('issued_by', 'text', (c) => c.notNull().check(sql`issued_by IN ('password', 'device')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('developer_keys_account').on('developer_keys').column('account_id').execute();

  await db.schema
    .createTable('web_sessions')
    .addColumn('hash', 'bytea', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_account').on('web_sessions').column('account_id').execute();

  await db.schema
    .createTable('device_logins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('device_code_hash', 'bytea', (c) => c.notNull().unique())
    .addColumn('user_code', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('pending', 'approved', 'denied', 'expired', 'consumed')`))
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_polled_at', 'timestamptz')
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('company_id', 'text', (c) => c.references('companies.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.check(sql`role IN ('developer', 'member')`))
    .addColumn('key_id', 'text', (c) => c.references('developer_keys.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('decided_at', 'timestamptz')
    .execute();
  // A user code names one pending request at a time.
  await sql`CREATE UNIQUE INDEX device_logins_pending_user_code ON device_logins (user_code) WHERE status = 'pending'`.execute(db);

  await db.schema
    .createTable('rate_limit_hits')
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limit_hits_pkey', ['bucket', 'window_start'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['rate_limit_hits', 'device_logins', 'web_sessions', 'developer_keys', 'licenses', 'companies', 'accounts']) {
    await db.schema.dropTable(table).execute();
  }
}
