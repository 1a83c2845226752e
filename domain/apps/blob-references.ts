import { type Expression, type SqlBool, sql } from 'kysely';
import type { Database } from '../db/index.ts';

type HashColumn<T extends keyof Database> = {
  [C in keyof Database[T]]: Database[T][C] extends Buffer | null ? C : never;
}[keyof Database[T]];

/**
 * Every column that names a blob by its SHA-256 (bytea): a blob is kept while one row holds its
 * hash in one of them. A new table that stores bytes in the blob store adds its column here (a
 * test compares this list with the database's hash columns). Each has an index.
 */
export const BLOB_REFERENCES = [
  /** App versions' files (every version kept, so every version stays servable). */
  ref('version_files', 'blob_sha256'),
  /** Media items, visible or staged in an open transaction (an aborted transaction's are deleted). */
  ref('media_items', 'sha256'),
  /** Upload session parts until the session is attached, failed or purged. */
  ref('media_upload_parts', 'sha256'),
  /**
   * The parts of composite media items (an upload's item kept as its parts' blobs), while the
   * composite is kept: the sweep drops a composite once no row names its item (sweepComposites).
   */
  ref('media_composite_parts', 'part_sha256'),
  /** The transformation cache's results (its input hash is a cache key only). */
  ref('media_transformations', 'output_sha256'),
  /** Attachments, until their removal. */
  ref('attachments', 'sha256'),
  /** World-model assets. */
  ref('world_assets', 'sha256'),
];

function ref<T extends keyof Database>(table: T, column: HashColumn<T> & string) {
  return { table, column };
}

/** True where no referencing row names `hash` (a bytea expression of the outer query). */
export function unreferenced(hash: Expression<Buffer>): Expression<SqlBool> {
  const clauses = BLOB_REFERENCES.map(
    ({ table, column }) => sql<SqlBool>`NOT EXISTS (SELECT 1 FROM ${sql.table(table)} WHERE ${sql.ref(`${table}.${column}`)} = ${hash})`,
  );
  return sql<SqlBool>`(${sql.join(clauses, sql` AND `)})`;
}
