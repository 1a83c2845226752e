import type { Kysely } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

// Old rate-limit windows are pruned by `window_start` (domain/rate-limit/rate-limit.ts): with an
// index the prune reads only the rows it deletes, not the whole table (a day of windows of every
// address) about a hundred times at every minute boundary.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('rate_limit_hits_window_start').on('rate_limit_hits').column('window_start').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('rate_limit_hits_window_start').execute();
}
