import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The edits history is written once and read whole (`edit`, `edit->'before'`, `edit->'after'`):
  // nothing queries inside it, so it need not be converted to jsonb's binary form on the way in,
  // which cost a data sync's page of 5,000 creates about 75 of the 180 ms of its history insert
  // (stop 36, docs/contributing/performance-history.md). json keeps the text as written.
  await sql`ALTER TABLE ontology_edits ALTER COLUMN edit TYPE json USING edit::json`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE ontology_edits ALTER COLUMN edit TYPE jsonb USING edit::jsonb`.execute(db);
}
