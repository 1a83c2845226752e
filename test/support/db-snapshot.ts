import { sql } from 'kysely';
import type { DbOrTrx } from '../../domain/db/database.ts';

/**
 * Every row of every table in the public schema, plus every sequence's
 * position: equal snapshots mean a request changed nothing in the database.
 */
export async function snapshotDatabase(db: DbOrTrx): Promise<Record<string, unknown>> {
  const tables = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db);
  const snapshot: Record<string, unknown> = {};
  for (const { name } of tables.rows) {
    const rows = await sql`SELECT * FROM ${sql.table(name)}`.execute(db);
    snapshot[`table:${name}`] = rows.rows.map((r) => JSON.stringify(r)).sort();
  }
  const sequences = await sql<{ name: string; last_value: string | null }>`
    SELECT sequencename AS name, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY sequencename`.execute(db);
  for (const s of sequences.rows) snapshot[`sequence:${s.name}`] = s.last_value;
  return snapshot;
}
