import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // What an app ticket was opened with: a key or a web session (null for tickets opened before
  // this migration, and for none else). authenticateTicket joins them, so a revoked key or an
  // ended session ends its tickets at once. No foreign key on the session: ended sessions are
  // deleted, and a missing one is exactly what the join looks for. `renewed_at`: a renewed ticket
  // admits a short overlap for requests in flight, then stops, and never renews again.
  await db.schema
    .alterTable('app_tickets')
    .addColumn('key_id', 'text', (c) => c.references('developer_keys.id').onDelete('cascade'))
    .addColumn('session_hash', 'bytea')
    .addColumn('renewed_at', 'timestamptz')
    .execute();

  // The share an OAuth authorization came through (a public link or a named share): its code and
  // tokens end with it. A refresh re-checks the whole access and records the share that admits now.
  await db.schema.alterTable('oauth_codes').addColumn('share_id', 'text').execute();
  await db.schema
    .alterTable('oauth_tokens')
    .addColumn('share_id', 'text', (c) => c.references('app_shares.id').onDelete('cascade'))
    .execute();
  // Refresh tokens already rotated away (RFC 9700 4.14): presenting one again revokes its grant.
  // Bounded by the grant's absolute lifetime (its rows go with the grant).
  await db.schema
    .createTable('oauth_used_refresh_tokens')
    .addColumn('hash', 'bytea', (c) => c.primaryKey())
    .addColumn('token_id', 'text', (c) => c.notNull().references('oauth_tokens.id').onDelete('cascade'))
    .addColumn('used_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // The principal cache (domain/keys/principal-cache.ts) also holds the ticket cookies that
  // admitted a version's files: whatever ends a ticket must empty it in every process, as key
  // changes do (migration 2026-11-22T2230-performance). Inserts are not watched: a new ticket or
  // session invalidates nothing.
  const watched: [table: string, events: string][] = [
    ['app_tickets', 'UPDATE OF revoked_at, expires_at, renewed_at, account_id, app_id, channel OR DELETE OR TRUNCATE'],
    ['app_shares', 'UPDATE OF revoked_at, expires_at OR DELETE OR TRUNCATE'],
    ['web_sessions', 'UPDATE OF expires_at, account_id OR DELETE OR TRUNCATE'],
  ];
  for (const [table, events] of watched) {
    await sql`CREATE TRIGGER ${sql.id(`${table}_notify_principals`)} AFTER ${sql.raw(events)} ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['app_tickets', 'app_shares', 'web_sessions']) {
    await sql`DROP TRIGGER ${sql.id(`${table}_notify_principals`)} ON ${sql.table(table)}`.execute(db);
  }
  await db.schema.dropTable('oauth_used_refresh_tokens').execute();
  await db.schema.alterTable('oauth_tokens').dropColumn('share_id').execute();
  await db.schema.alterTable('oauth_codes').dropColumn('share_id').execute();
  await db.schema.alterTable('app_tickets').dropColumn('key_id').dropColumn('session_hash').dropColumn('renewed_at').execute();
}
