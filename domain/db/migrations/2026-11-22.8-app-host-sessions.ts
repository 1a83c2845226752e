import type { Kysely } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Sessions on an app host (a page base on a host other than {base_url}'s) are web_sessions rows
  // too, so endSessionsOf ends them with the account's; each hangs off the {base_url} session it
  // was handed off from and ends with it (sign-out, a new sign-in).
  await db.schema
    .alterTable('web_sessions')
    /** The app host the session is for (`host[:port]`); null for the {base_url} session. */
    .addColumn('host', 'text')
    .addColumn('parent_hash', 'bytea', (c) => c.references('web_sessions.hash').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('web_sessions_parent').on('web_sessions').column('parent_hash').execute();

  // One-time hand-off codes: only the SHA-256 is stored; a code is deleted when redeemed.
  await db.schema
    .createTable('app_handoff_codes')
    .addColumn('hash', 'bytea', (c) => c.primaryKey())
    .addColumn('session_hash', 'bytea', (c) => c.notNull().references('web_sessions.hash').onDelete('cascade'))
    .addColumn('host', 'text', (c) => c.notNull())
    /** SHA-256 of the state cookie the app host set on the browser that started the hand-off. */
    .addColumn('state_hash', 'bytea', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('app_handoff_codes').execute();
  await db.schema.alterTable('web_sessions').dropColumn('parent_hash').dropColumn('host').execute();
}
