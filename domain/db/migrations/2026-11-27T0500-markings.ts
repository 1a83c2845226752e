import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Marking categories of a company (spec G, Admin; Foundry's shapes): a conjunctive category asks
  // a principal for every one of a resource's markings in it, a disjunctive one for any of them.
  await db.schema
    .createTable('marking_categories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('category_type', 'text', (c) => c.notNull().check(sql`category_type IN ('conjunctive', 'disjunctive')`))
    .addColumn('marking_type', 'text', (c) => c.notNull().defaultTo('mandatory').check(sql`marking_type IN ('mandatory', 'cbac')`))
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`CREATE UNIQUE INDEX marking_categories_company_name ON marking_categories (company_id, lower(name))`.execute(db);

  await db.schema
    .createTable('markings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('category_id', 'text', (c) => c.notNull().references('marking_categories.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Names are unique per category, whatever their case (marking_name_exists).
  await sql`CREATE UNIQUE INDEX markings_category_name ON markings (category_id, lower(name))`.execute(db);

  // Roles on a marking, held by an account or a group (a group's live members hold it).
  await db.schema
    .createTable('marking_role_assignments')
    .addColumn('marking_id', 'text', (c) => c.notNull().references('markings.id').onDelete('cascade'))
    .addColumn('principal', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role IN ('administer', 'declassify', 'use')`))
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('marking_role_assignments_pkey', ['marking_id', 'principal', 'role'])
    .execute();
  // A principal's clearance is read by principal.
  await db.schema.createIndex('marking_role_assignments_principal').on('marking_role_assignments').column('principal').execute();

  // The markings on a generic resource (by its rid, as grants are).
  await db.schema
    .createTable('resource_markings')
    .addColumn('rid', 'text', (c) => c.notNull())
    .addColumn('marking_id', 'text', (c) => c.notNull().references('markings.id').onDelete('cascade'))
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('resource_markings_pkey', ['rid', 'marking_id'])
    .execute();
  await db.schema.createIndex('resource_markings_marking').on('resource_markings').column('marking_id').execute();

  // Clearances are cached with the principals (domain/markings clearanceOf): every change of a role
  // assignment (or a marking's deletion) empties the principal caches of every process. Resource
  // markings too, so nothing admitted under a resource's former markings outlives the change.
  await sql`CREATE TRIGGER marking_role_assignments_notify_principals AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON marking_role_assignments
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
  await sql`CREATE TRIGGER markings_notify_principals AFTER DELETE OR TRUNCATE ON markings
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
  await sql`CREATE TRIGGER resource_markings_notify_principals AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON resource_markings
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('resource_markings').execute();
  await db.schema.dropTable('marking_role_assignments').execute();
  await db.schema.dropTable('markings').execute();
  await db.schema.dropTable('marking_categories').execute();
}
