import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Edits-history and change rows are written only by the one writer, with the ids of the company
  // and object type it has just read in the same transaction, and the service never deletes either.
  // Their foreign keys' per-row checks cost more than the rows' own inserts (a data sync's page of
  // 5,000 change rows: 95 ms of insert and 240 ms of checks, bench/data-sync.ts): they go, and what
  // their ON DELETE CASCADE did (a company or object type deleted by hand takes its rows) is kept
  // by triggers on the referenced tables.
  for (const [table, column] of [
    ['ontology_edits', 'object_type_id'],
    ['ontology_changes', 'object_type_id'],
    ['ontology_changes', 'company_id'],
  ] as const) {
    await sql`ALTER TABLE ${sql.table(table)} DROP CONSTRAINT ${sql.id(`${table}_${column}_fkey`)}`.execute(db);
  }
  await sql`CREATE FUNCTION svc_delete_object_type_history() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM ontology_edits WHERE object_type_id = OLD.id;
      DELETE FROM ontology_changes WHERE object_type_id = OLD.id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER object_types_delete_history AFTER DELETE ON object_types
    FOR EACH ROW EXECUTE FUNCTION svc_delete_object_type_history()`.execute(db);
  await sql`CREATE FUNCTION svc_delete_company_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM ontology_changes WHERE company_id = OLD.id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER companies_delete_changes AFTER DELETE ON companies
    FOR EACH ROW EXECUTE FUNCTION svc_delete_company_changes()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER companies_delete_changes ON companies`.execute(db);
  await sql`DROP FUNCTION svc_delete_company_changes()`.execute(db);
  await sql`DROP TRIGGER object_types_delete_history ON object_types`.execute(db);
  await sql`DROP FUNCTION svc_delete_object_type_history()`.execute(db);
  await sql`ALTER TABLE ontology_edits ADD FOREIGN KEY (object_type_id) REFERENCES object_types (id) ON DELETE CASCADE`.execute(db);
  await sql`ALTER TABLE ontology_changes ADD FOREIGN KEY (object_type_id) REFERENCES object_types (id) ON DELETE CASCADE`.execute(db);
  await sql`ALTER TABLE ontology_changes ADD FOREIGN KEY (company_id) REFERENCES companies (id) ON DELETE CASCADE`.execute(db);
}
