import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

// What a data sync's page writes for each object, made cheaper (stop 36,
// docs/contributing/performance-history.md; a page of 5,000 creates).
export async function up(db: Kysely<unknown>): Promise<void> {
  // The edits history is written once and read whole (`edit`, `edit->'before'`, `edit->'after'`):
  // nothing queries inside it, so it need not be converted to jsonb's binary form on the way in,
  // which cost about 75 of the 180 ms of the page's history insert. json keeps the text as written.
  await sql`ALTER TABLE ontology_edits ALTER COLUMN edit TYPE json USING edit::json`.execute(db);
  // A change row names the last edit its writer made of the object (null: none found, a row
  // written by hand); the states of a change are found around it, which the index of the edits
  // by transaction did, at about 40 ms of the page's history insert.
  await sql`ALTER TABLE ontology_changes ADD COLUMN edit_seq bigint`.execute(db);
  await sql`UPDATE ontology_changes c SET edit_seq = (SELECT max(e.seq) FROM ontology_edits e
    WHERE e.object_type_id = c.object_type_id AND e.primary_key = c.primary_key AND e.xact = c.xact)`.execute(db);
  await db.schema.dropIndex('ontology_edits_xact').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('ontology_edits_xact').on('ontology_edits').columns(['object_type_id', 'primary_key', 'xact']).execute();
  await sql`ALTER TABLE ontology_changes DROP COLUMN edit_seq`.execute(db);
  await sql`ALTER TABLE ontology_edits ALTER COLUMN edit TYPE jsonb USING edit::jsonb`.execute(db);
}
