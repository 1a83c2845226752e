import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Rate-limit windows last a minute to a day and are written on every request: without WAL a
  // statement commits without waiting for a log flush. A crash empties the table, which forgets at
  // most the current windows' counts (documented in operators' rate limits); a standby sees none.
  await sql`ALTER TABLE rate_limit_hits SET UNLOGGED`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE rate_limit_hits SET LOGGED`.execute(db);
}
