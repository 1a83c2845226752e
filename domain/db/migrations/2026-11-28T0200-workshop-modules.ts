import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Application modules (generic resources `ri.workshop.svc.module.<id>`); `published_version`
  // names the version members open (null: none yet).
  await db.schema
    .createTable('workshop_modules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('published_version', 'integer')
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('workshop_modules_company').on('workshop_modules').columns(['company_id', 'name']).execute();

  // Every save is a numbered version (1, 2, …), never changed afterwards.
  await db.schema
    .createTable('workshop_module_versions')
    .addColumn('module_id', 'text', (c) => c.notNull().references('workshop_modules.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('definition', 'jsonb', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('workshop_module_versions_pk', ['module_id', 'version'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('workshop_module_versions').execute();
  await db.schema.dropTable('workshop_modules').execute();
}
