import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // World-model assets (spec G "Modeling"): a company's scene documents by name, their bytes in
  // the blob store by SHA-256 (as app files are). `generation_id`: the generation that made it.
  await db.schema
    .createTable('world_assets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sha256', 'bytea', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('generation_id', 'text')
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('world_assets_company_name', ['company_id', 'name'])
    .execute();
  // A generation request of an app: its credits were counted when it was accepted; a Temporal
  // workflow (world-generation-<id>) runs the provider and stores the result as `asset_name`.
  await db.schema
    .createTable('world_generations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('asset_name', 'text', (c) => c.notNull())
    .addColumn('request', 'jsonb', (c) => c.notNull())
    .addColumn('credits', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('queued', 'succeeded', 'failed')`))
    .addColumn('error', 'text')
    .addColumn('created_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('world_generations_app').on('world_generations').columns(['app_id', 'created_at']).execute();
}
