import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // A re-run with `apply: "move"` stores the new companyKey/rootPath at once and leaves here what
  // the run's move step still has to do on disk (old and new root and key); the step clears it.
  await sql`ALTER TABLE company_provisioning ADD COLUMN pending_move jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE company_provisioning DROP COLUMN pending_move`.execute(db);
}
