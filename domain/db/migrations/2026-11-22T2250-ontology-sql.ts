import type { Kysely } from 'kysely';
import { sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The PostgreSQL login roles ontology SQL runs as (domain/ontology/sql/sql-roles.ts): one per
  // company and set of readable object types, made on demand, granted SELECT on exactly those
  // tables. A query logs in as its role, so no statement can switch back to the service's role.
  // The password is random, known only to the service (the SQL roles cannot read this table).
  await db.schema
    .createTable('ontology_sql_roles')
    .addColumn('role_name', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    /** The apiNames of the object types it may read, sorted. */
    .addColumn('object_types', sql`text[]`, (c) => c.notNull())
    .addColumn('password', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('ontology_sql_roles_company').on('ontology_sql_roles').column('company_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ontology_sql_roles').execute();
}
