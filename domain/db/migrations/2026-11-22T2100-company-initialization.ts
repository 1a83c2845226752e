import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.
// Company initialization stores metadata only (spec F): no credential, key, token or
// connection string has a column here, and the guard (domain/provisioning/forbidden-data.ts)
// keeps them out of the text and JSON columns.

export async function up(db: Kysely<unknown>): Promise<void> {
  // One per initialized company: what the operator asked for and the server as last synced.
  await db.schema
    .createTable('company_provisioning')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id').onDelete('cascade'))
    .addColumn('company_key', 'text', (c) => c.notNull())
    .addColumn('name_en', 'text', (c) => c.notNull())
    .addColumn('name_zh', 'text', (c) => c.notNull())
    .addColumn('root_path', 'text', (c) => c.notNull())
    .addColumn('cloud', 'jsonb', (c) => c.notNull())
    .addColumn('instance', 'jsonb')
    .addColumn('instance_synced_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // Each call of an F endpoint; run_id is filled in by the relay once Temporal started or joined the run.
  await db.schema
    .createTable('provisioning_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('part', 'text', (c) => c.notNull())
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text')
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await db.schema
    .createIndex('provisioning_requests_company')
    .on('provisioning_requests')
    .columns(['company_id', 'requested_at'])
    .execute();

  // One per Temporal run, written by its activities at the end of each step (and each failed attempt).
  await db.schema
    .createTable('provisioning_runs')
    .addColumn('run_id', 'text', (c) => c.primaryKey())
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('part', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('steps', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('error', 'text')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('provisioning_runs_company').on('provisioning_runs').columns(['company_id', 'started_at']).execute();

  await db.schema
    .createTable('company_folders')
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('company_folders_pk', ['company_id', 'name'])
    .execute();

  // Each profile is an agent resource of the generic access model: `rid` is ri.agents.svc.agent.<id>.
  await db.schema
    .createTable('agent_profiles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rid', 'text', (c) => c.notNull().unique())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('folder_path', 'text', (c) => c.notNull())
    .addColumn('profile_path', 'text', (c) => c.notNull())
    .addColumn('description_path', 'text', (c) => c.notNull())
    .addColumn('description_sha256', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('agent_profiles_company_role', ['company_id', 'role'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['agent_profiles', 'company_folders', 'provisioning_runs', 'provisioning_requests', 'company_provisioning']) {
    await db.schema.dropTable(table).execute();
  }
}
