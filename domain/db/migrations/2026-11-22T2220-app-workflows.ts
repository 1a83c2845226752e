import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per run of an app's workflow (a Temporal run under `workflow_id`): its trigger, the
  // version it ran, status, timing and each step's status, duration and output.
  await db.schema
    .createTable('workflow_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('version_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('workflow_id', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('input', 'jsonb', (c) => c.notNull())
    .addColumn('steps', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('output', 'jsonb')
    .addColumn('error', 'text')
    // An execute's Idempotency-Key (stored as a SHA-256 hex): the same key answers the same run.
    .addColumn('idempotency_key', 'text')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz')
    .addColumn('duration_ms', 'integer')
    .execute();
  await db.schema.createIndex('workflow_runs_app').on('workflow_runs').columns(['app_id', 'started_at']).execute();
  await db.schema
    .createIndex('workflow_runs_idempotency')
    .on('workflow_runs')
    .columns(['app_id', 'idempotency_key'])
    .unique()
    .where(sql.ref('idempotency_key'), 'is not', null)
    .execute();

  // Run progress as the watch stream sends it: every run and step change, numbered per app in
  // commit order (the writer holds a per-app lock to its commit, so a reader that has seen n never
  // misses a later-committed n-1), so a client resumes after the last sequence number it saw.
  await db.schema
    .createTable('workflow_run_events')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull().references('workflow_runs.id').onDelete('cascade'))
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('workflow_run_events_pk', ['app_id', 'seq'])
    .execute();

  // Every notify email: sent, recorded (no SMTP configured) or blocked (over the daily cap). One
  // row per run, step and recipient, so a retried step never sends a message twice.
  await db.schema
    .createTable('workflow_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.references('apps.id').onDelete('cascade'))
    .addColumn('run_id', 'text')
    .addColumn('step_id', 'text')
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('workflow_notifications_once')
    .on('workflow_notifications')
    .columns(['run_id', 'step_id', 'recipient'])
    .unique()
    .execute();
  await db.schema.createIndex('workflow_notifications_app').on('workflow_notifications').columns(['app_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('workflow_notifications').execute();
  await db.schema.dropTable('workflow_run_events').execute();
  await db.schema.dropTable('workflow_runs').execute();
}
