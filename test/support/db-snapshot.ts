import { sql } from 'kysely';
import type { DbOrTrx } from '../../domain/db/database.ts';

export interface SnapshotOptions {
  /** Tables left out entirely (e.g. counters written outside the request's transaction on purpose). */
  ignoreTables?: readonly string[];
  /** Columns left out of a table's rows, by table. */
  ignoreColumns?: Readonly<Record<string, readonly string[]>>;
  /** Sequences whose position is left out (a rolled-back nextval keeps its gap: harmless where only the order counts). */
  ignoreSequences?: readonly string[];
}

/**
 * Every row of every table in the public schema and in the companies' ontology schemas (their
 * objects, one table per object type), plus every sequence's
 * position: equal snapshots mean a request changed nothing in the database.
 * The outbox is one of those tables, so an intent to start or signal a workflow shows too.
 */
export async function snapshotDatabase(db: DbOrTrx, opts: SnapshotOptions = {}): Promise<Record<string, unknown>> {
  const tables = await sql<{ schema: string; name: string }>`
    SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
    WHERE (table_schema = 'public' OR table_schema LIKE 'ontology\_%') AND table_type = 'BASE TABLE'
    ORDER BY table_schema, table_name`.execute(db);
  const snapshot: Record<string, unknown> = {};
  for (const { schema, name } of tables.rows) {
    if (opts.ignoreTables?.includes(name)) continue;
    const ignored = opts.ignoreColumns?.[name] ?? [];
    const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.id(schema, name)}`.execute(db);
    snapshot[schema === 'public' ? `table:${name}` : `table:${schema}.${name}`] = rows.rows
      .map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).filter(([column]) => !ignored.includes(column)))))
      .sort();
  }
  const sequences = await sql<{ name: string; last_value: string | null }>`
    SELECT sequencename AS name, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY sequencename`.execute(db);
  for (const s of sequences.rows) if (!opts.ignoreSequences?.includes(s.name)) snapshot[`sequence:${s.name}`] = s.last_value;
  return snapshot;
}

/**
 * snapshotDatabase of a test service's database, once the opens its open recorder holds are
 * written: they are written at the end of their minute, which may fall between two snapshots.
 */
export async function snapshotService(
  svc: { database: { db: DbOrTrx }; deps: { opens: { flush(): Promise<void> } } },
  opts: SnapshotOptions = {},
): Promise<Record<string, unknown>> {
  await svc.deps.opens.flush();
  return snapshotDatabase(svc.database.db, opts);
}
