import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The ontology SQL roles get a lifecycle (domain/ontology/sql/sql-roles.ts): a sweep drops the
  // roles nobody can use any more. Their rows must outlive the company or account they served
  // (a cascade deleted the row and left the PostgreSQL role behind, unknown), and name the schema
  // their grants are on (the ontology row may be gone too).
  await db.schema.alterTable('ontology_sql_roles').addColumn('schema_name', 'text').execute();
  await sql`UPDATE ontology_sql_roles r SET schema_name = o.schema_name FROM ontologies o WHERE o.company_id = r.company_id`.execute(db);
  // A row without its ontology has no grants left to revoke: its role is dropped by the next sweep.
  await sql`UPDATE ontology_sql_roles SET schema_name = '' WHERE schema_name IS NULL`.execute(db);
  await db.schema
    .alterTable('ontology_sql_roles')
    .alterColumn('schema_name', (c) => c.setNotNull())
    .execute();
  await sql`ALTER TABLE ontology_sql_roles DROP CONSTRAINT IF EXISTS ontology_sql_roles_company_id_fkey`.execute(db);
  await sql`ALTER TABLE ontology_sql_roles DROP CONSTRAINT IF EXISTS ontology_sql_roles_account_id_fkey`.execute(db);
  await db.schema
    .createIndex('ontology_sql_roles_credential')
    .on('ontology_sql_roles')
    .columns(['company_id', 'credential_kind', 'account_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ontology_sql_roles_credential').execute();
  await sql`DELETE FROM ontology_sql_roles r WHERE NOT EXISTS (SELECT 1 FROM companies c WHERE c.id = r.company_id)
            OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = r.account_id)`.execute(db);
  await sql`ALTER TABLE ontology_sql_roles ADD CONSTRAINT ontology_sql_roles_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies (id) ON DELETE CASCADE`.execute(
    db,
  );
  await sql`ALTER TABLE ontology_sql_roles ADD CONSTRAINT ontology_sql_roles_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE`.execute(
    db,
  );
  await db.schema.alterTable('ontology_sql_roles').dropColumn('schema_name').execute();
}
