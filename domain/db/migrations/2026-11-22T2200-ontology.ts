import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // One ontology per company, made at its first definition. Its objects live in the company's own
  // PostgreSQL schema (`schema_name`), one table per object type (domain/ontology/object-tables.ts).
  await db.schema
    .createTable('ontologies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().unique().references('companies.id').onDelete('cascade'))
    .addColumn('schema_name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // The current definition of each object type; every version's full definition stays in
  // object_type_versions. apiName and primary key never change.
  await db.schema
    .createTable('object_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ontology_id', 'text', (c) => c.notNull().references('ontologies.id').onDelete('cascade'))
    .addColumn('api_name', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('plural_display_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('primary_key', 'text', (c) => c.notNull())
    .addColumn('title_property', 'text', (c) => c.notNull())
    .addColumn('properties', 'jsonb', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('object_types_api_name', ['ontology_id', 'api_name'])
    .execute();
  await db.schema
    .createTable('object_type_versions')
    .addColumn('object_type_id', 'text', (c) => c.notNull().references('object_types.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('definition', 'jsonb', (c) => c.notNull())
    /** No foreign key: the history outlives accounts. */
    .addColumn('account_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('object_type_versions_pk', ['object_type_id', 'version'])
    .execute();

  // A link type joins two object types; each side has the name its objects use for the link and
  // how many objects of the other side one object may link to.
  await db.schema
    .createTable('link_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ontology_id', 'text', (c) => c.notNull().references('ontologies.id').onDelete('cascade'))
    .addColumn('api_name', 'text', (c) => c.notNull())
    .addColumn('source_type_id', 'text', (c) => c.notNull().references('object_types.id').onDelete('cascade'))
    .addColumn('source_link_name', 'text', (c) => c.notNull())
    .addColumn('source_cardinality', 'text', (c) => c.notNull().check(sql`source_cardinality IN ('ONE', 'MANY')`))
    .addColumn('target_type_id', 'text', (c) => c.notNull().references('object_types.id').onDelete('cascade'))
    .addColumn('target_link_name', 'text', (c) => c.notNull())
    .addColumn('target_cardinality', 'text', (c) => c.notNull().check(sql`target_cardinality IN ('ONE', 'MANY')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('link_types_api_name', ['ontology_id', 'api_name'])
    .execute();
  // Link rows of every link type; primary keys as text (the property types a key may have print exactly).
  await db.schema
    .createTable('object_links')
    .addColumn('link_type_id', 'text', (c) => c.notNull().references('link_types.id').onDelete('cascade'))
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('target_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('object_links_pk', ['link_type_id', 'source_key', 'target_key'])
    .execute();
  await db.schema.createIndex('object_links_target').on('object_links').columns(['link_type_id', 'target_key']).execute();

  // Edits history (Foundry editsHistory): one row per object edit, written by write-edits.ts only.
  await db.schema
    .createTable('ontology_edits')
    .addColumn('seq', 'bigserial', (c) => c.primaryKey())
    .addColumn('object_type_id', 'text', (c) => c.notNull().references('object_types.id').onDelete('cascade'))
    .addColumn('primary_key', 'text', (c) => c.notNull())
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('action_type_rid', 'text')
    .addColumn('account_id', 'text')
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    /** `{type: create|modify|delete, before, after}`. */
    .addColumn('edit', 'jsonb', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ontology_edits_object').on('ontology_edits').columns(['object_type_id', 'primary_key', 'seq']).execute();
  await db.schema.createIndex('ontology_edits_type').on('ontology_edits').columns(['object_type_id', 'seq']).execute();

  // Changes as subscribers and change triggers see them: one row per changed object, in one global
  // order (seq), committed with the edit. Sequence gaps (rolled-back writes) are harmless.
  await db.schema
    .createTable('ontology_changes')
    .addColumn('seq', 'bigserial', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('object_type_id', 'text', (c) => c.notNull().references('object_types.id').onDelete('cascade'))
    .addColumn('primary_key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('ADDED_OR_UPDATED', 'REMOVED')`))
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('ontology_changes_company').on('ontology_changes').columns(['company_id', 'seq']).execute();

  // Temporary object sets (createTemporary): kept 24 hours.
  await db.schema
    .createTable('temporary_object_sets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ontology_id', 'text', (c) => c.notNull().references('ontologies.id').onDelete('cascade'))
    .addColumn('object_set', 'jsonb', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('temporary_object_sets_expiry').on('temporary_object_sets').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The per-company schemas hold the objects.
  const schemas = await sql<{ schema_name: string }>`SELECT schema_name FROM ontologies`.execute(db);
  for (const { schema_name } of schemas.rows) await db.schema.dropSchema(schema_name).ifExists().cascade().execute();
  for (const table of [
    'temporary_object_sets',
    'ontology_changes',
    'ontology_edits',
    'object_links',
    'link_types',
    'object_type_versions',
    'object_types',
    'ontologies',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
