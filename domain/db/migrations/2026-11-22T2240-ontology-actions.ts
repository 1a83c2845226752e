import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Action types: the current definition, every version kept (as for object types).
  await db.schema
    .createTable('action_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ontology_id', 'text', (c) => c.notNull().references('ontologies.id').onDelete('cascade'))
    .addColumn('api_name', 'text', (c) => c.notNull())
    /** The whole definition as written (schemas/ontology-actions.ts ActionTypeDefinition). */
    .addColumn('definition', 'jsonb', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('action_types_api_name', ['ontology_id', 'api_name'])
    .execute();
  await db.schema
    .createTable('action_type_versions')
    .addColumn('action_type_id', 'text', (c) => c.notNull().references('action_types.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('definition', 'jsonb', (c) => c.notNull())
    .addColumn('account_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('action_type_versions_pk', ['action_type_id', 'version'])
    .execute();

  // Restricted agent keys are developer keys with an agent and restrictions (one authentication
  // path): issued by a developer of the company, stored as a hash like every key.
  await db.schema.alterTable('developer_keys').addColumn('agent_id', 'text').addColumn('restrictions', 'jsonb').execute();
  await sql`ALTER TABLE developer_keys DROP CONSTRAINT developer_keys_issued_by_check`.execute(db);
  await sql`ALTER TABLE developer_keys ADD CONSTRAINT developer_keys_issued_by_check CHECK (issued_by IN ('password', 'device', 'agent'))`.execute(
    db,
  );
  await sql`ALTER TABLE developer_keys ADD CONSTRAINT developer_keys_agent CHECK ((issued_by = 'agent') = (agent_id IS NOT NULL AND restrictions IS NOT NULL))`.execute(
    db,
  );
  await db.schema
    .createIndex('developer_keys_agents')
    .on('developer_keys')
    .columns(['company_id', 'created_at'])
    .where(sql.ref('agent_id'), 'is not', null)
    .execute();

  // Branches of a company's definitions (spec "Branches"): definition batches written to a branch
  // wait there, in order, until a proposal of the branch is merged.
  await db.schema
    .createTable('ontology_branches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ontology_id', 'text', (c) => c.notNull().references('ontologies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('ACTIVE', 'INACTIVE', 'MERGED')`))
    .addColumn('account_id', 'text')
    /** `human` or `agent:<id>`. */
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('last_activity_at', 'timestamptz', (c) => c.notNull())
    .addColumn('inactive_since', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('ontology_branches_name', ['ontology_id', 'name'])
    .execute();
  await db.schema.createIndex('ontology_branches_activity').on('ontology_branches').columns(['status', 'last_activity_at']).execute();
  await db.schema
    .createTable('ontology_branch_writes')
    .addColumn('seq', 'bigserial', (c) => c.primaryKey())
    .addColumn('branch_id', 'text', (c) => c.notNull().references('ontology_branches.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('objectTypes', 'actionTypes')`))
    .addColumn('request', 'jsonb', (c) => c.notNull())
    .addColumn('account_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('ontology_branch_writes_branch').on('ontology_branch_writes').columns(['branch_id', 'seq']).execute();
  await db.schema
    .createTable('ontology_proposals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('branch_id', 'text', (c) => c.notNull().references('ontology_branches.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('OPEN', 'APPROVED', 'REJECTED', 'MERGED')`))
    .addColumn('account_id', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('ontology_proposals_branch').on('ontology_proposals').column('branch_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['ontology_proposals', 'ontology_branch_writes', 'ontology_branches', 'action_type_versions', 'action_types']) {
    await db.schema.dropTable(table).execute();
  }
  await db
    .deleteFrom('developer_keys' as never)
    .where(sql.ref('agent_id'), 'is not', null)
    .execute();
  await sql`ALTER TABLE developer_keys DROP CONSTRAINT developer_keys_agent`.execute(db);
  await sql`ALTER TABLE developer_keys DROP CONSTRAINT developer_keys_issued_by_check`.execute(db);
  await sql`ALTER TABLE developer_keys ADD CONSTRAINT developer_keys_issued_by_check CHECK (issued_by IN ('password', 'device'))`.execute(
    db,
  );
  await db.schema.alterTable('developer_keys').dropColumn('agent_id').dropColumn('restrictions').execute();
}
