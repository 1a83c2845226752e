import type { Kysely } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The Temporal run id of an app workflow run (beside its workflow id), recorded when the run
  // begins; null for runs recorded before, and for an API run not yet begun.
  await db.schema.alterTable('workflow_runs').addColumn('temporal_run_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workflow_runs').dropColumn('temporal_run_id').execute();
}
