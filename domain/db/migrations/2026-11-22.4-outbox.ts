import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Intents written in the same transaction as the change they follow; a relay delivers them.
  await db.schema
    .createTable('outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('topic', 'text', (c) => c.notNull())
    /** The business key (e.g. a device login id): the relay derives the workflow id from it. */
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    /** clock_timestamp, not now(): events of one transaction keep their order. No sequence, so a dry run leaves no trace. */
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    /** Due time: now for new intents, later after a failure (backoff) or while a relay holds it (lease). */
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('last_error', 'text')
    .execute();
  await db.schema.createIndex('outbox_due').on('outbox').columns(['next_attempt_at', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('outbox').execute();
}
