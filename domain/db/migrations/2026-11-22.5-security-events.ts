import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Why a key stopped working; revocation is permanent, so the reason is shown to its owner.
  await db.schema
    .alterTable('developer_keys')
    .addColumn('revoked_reason', 'text', (c) =>
      c.check(sql`revoked_reason IN ('owner', 'operator', 'password_change', 'password_reset', 'account_disabled', 'license_removed')`),
    )
    .execute();
  await sql`UPDATE developer_keys SET revoked_reason = 'owner' WHERE revoked_at IS NOT NULL`.execute(db);

  // What an operator reads after an incident: sign-in failures, lockouts, keys and passwords.
  await db.schema
    .createTable('security_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** Milliseconds, as JavaScript dates hold them, so a page cursor compares exactly. */
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`date_trunc('milliseconds', clock_timestamp())`))
    .addColumn('kind', 'text', (c) => c.notNull())
    /** The account the event is about; null when the typed login matched none. */
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    /** Who caused it when not the account itself (an operator). */
    .addColumn('actor_id', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('ip', 'text')
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema.createIndex('security_events_at').on('security_events').columns(['at', 'id']).execute();
  await db.schema.createIndex('security_events_account').on('security_events').columns(['account_id', 'at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('security_events').execute();
  await db.schema.alterTable('developer_keys').dropColumn('revoked_reason').execute();
}
