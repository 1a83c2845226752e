import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Automations: a condition and effects of a company, owned by one of its apps (whose compute
  // quota and notification cap they spend) and acting as the developer who last saved them.
  // `threshold_met`: whether a threshold condition held at its last evaluation (it fires on the
  // crossing only). `last_fired_at`: the start of the last run that started effects (cooldown).
  await db.schema
    .createTable('automations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('condition', 'jsonb', (c) => c.notNull())
    .addColumn('effects', 'jsonb', (c) => c.notNull())
    .addColumn('retries', 'integer', (c) => c.notNull())
    .addColumn('cooldown_seconds', 'integer', (c) => c.notNull())
    .addColumn('daily_cap', 'integer', (c) => c.notNull())
    .addColumn('threshold_met', 'boolean')
    .addColumn('last_fired_at', 'timestamptz')
    .addColumn('owner_id', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('automations_name', ['company_id', 'name'])
    .execute();

  // One row per trigger the automation saw: `trigger_key` makes a trigger delivered twice (an
  // outbox redelivery, a retried activity) one run. `effects` holds each effect's outcome.
  await db.schema
    .createTable('automation_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('automation_id', 'text', (c) => c.notNull().references('automations.id').onDelete('cascade'))
    .addColumn('trigger_key', 'text', (c) => c.notNull())
    .addColumn('trigger', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED')`))
    .addColumn('skip_reason', 'text')
    .addColumn('effects', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'`))
    .addColumn('error', 'text')
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('temporal_run_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz')
    .addUniqueConstraint('automation_runs_trigger', ['automation_id', 'trigger_key'])
    .execute();
  await db.schema.createIndex('automation_runs_listing').on('automation_runs').columns(['automation_id', 'started_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('automation_runs').execute();
  await db.schema.dropTable('automations').execute();
}
