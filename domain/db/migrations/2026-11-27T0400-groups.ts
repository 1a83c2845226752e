import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Groups of a company (spec G, Admin): flat sets of accounts, principals of shares and grants.
  // `max_membership_days`: the group's membership expiration policy (every membership expires
  // within that many days of being added; null: no limit).
  await db.schema
    .createTable('groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('max_membership_days', 'integer', (c) => c.check(sql`max_membership_days BETWEEN 1 AND 3650`))
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Names are unique per company, whatever their case; the prefix search reads this index.
  await sql`CREATE UNIQUE INDEX groups_company_name ON groups (company_id, lower(name) text_pattern_ops)`.execute(db);

  // Memberships: expiry is compared at each check (domain/policy liveGroupIds), never swept.
  await db.schema
    .createTable('group_members')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('added_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('added_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('group_members_pkey', ['account_id', 'group_id'])
    .execute();
  await db.schema.createIndex('group_members_group').on('group_members').column('group_id').execute();

  // A users share may name a group instead of an account: exactly one of the two.
  await db.schema
    .alterTable('app_shares')
    .addColumn('group_id', 'text', (c) => c.references('groups.id').onDelete('cascade'))
    .execute();
  await sql`ALTER TABLE app_shares DROP CONSTRAINT app_shares_shape`.execute(db);
  await sql`ALTER TABLE app_shares ADD CONSTRAINT app_shares_shape CHECK (
    (audience = 'users') = (account_id IS NOT NULL OR group_id IS NOT NULL)
    AND (account_id IS NULL OR group_id IS NULL)
    AND (audience = 'public') = (token_hash IS NOT NULL AND token_prefix IS NOT NULL))`.execute(db);
  await sql`CREATE UNIQUE INDEX app_shares_group ON app_shares (app_id, group_id) WHERE audience = 'users' AND revoked_at IS NULL AND group_id IS NOT NULL`.execute(
    db,
  );

  // Memberships decide access like licenses do: every change empties the principal caches of
  // every process (ticket cookies admitted through a group share or grant among them).
  await sql`CREATE TRIGGER group_members_notify_principals AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON group_members
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
  await sql`CREATE TRIGGER groups_notify_principals AFTER DELETE OR TRUNCATE ON groups
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER groups_notify_principals ON groups`.execute(db);
  await sql`DROP TRIGGER group_members_notify_principals ON group_members`.execute(db);
  await sql`DELETE FROM app_shares WHERE group_id IS NOT NULL`.execute(db);
  await sql`ALTER TABLE app_shares DROP CONSTRAINT app_shares_shape`.execute(db);
  await sql`ALTER TABLE app_shares ADD CONSTRAINT app_shares_shape CHECK (
    (audience = 'users') = (account_id IS NOT NULL) AND (audience = 'public') = (token_hash IS NOT NULL AND token_prefix IS NOT NULL))`.execute(
    db,
  );
  await db.schema.alterTable('app_shares').dropColumn('group_id').execute();
  await db.schema.dropTable('group_members').execute();
  await db.schema.dropTable('groups').execute();
}
