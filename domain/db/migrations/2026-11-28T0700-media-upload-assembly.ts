import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Assembly runs in a Temporal workflow now: a session it cannot assemble (a part's bytes gone,
  // sizes that do not add up) ends FAILED with a code and a message, instead of answering a request.
  await sql`ALTER TABLE media_uploads DROP CONSTRAINT media_uploads_state_check`.execute(db);
  await sql`ALTER TABLE media_uploads ADD CONSTRAINT media_uploads_state_check
    CHECK (state IN ('OPEN', 'COMPLETING', 'COMPLETED', 'FAILED', 'PURGED'))`.execute(db);
  await db.schema
    .alterTable('media_uploads')
    .addColumn('failure_code', 'text')
    .addColumn('failure_message', 'text')
    // Who completed the session: the object write that attaches the item is recorded as theirs.
    .addColumn('completed_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .execute();
  // The purge schedule finds abandoned sessions (OPEN, untouched for long) by this.
  await db.schema
    .createIndex('media_uploads_open_idle')
    .on('media_uploads')
    .column('updated_at')
    .where(sql.ref('state'), '=', 'OPEN')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('media_uploads_open_idle').execute();
  await db.schema.alterTable('media_uploads').dropColumn('failure_code').dropColumn('failure_message').dropColumn('completed_by').execute();
  await sql`ALTER TABLE media_uploads DROP CONSTRAINT media_uploads_state_check`.execute(db);
  await sql`ALTER TABLE media_uploads ADD CONSTRAINT media_uploads_state_check
    CHECK (state IN ('OPEN', 'COMPLETING', 'COMPLETED', 'PURGED'))`.execute(db);
}
