// What a sync reads from, whatever the kind: pages of rows (column → value) in a stable order and
// the position after each, which the sync commits with the page's objects.

export interface ReadSpec {
  /** The sync's source (table, file pattern, endpoint). */
  source: Record<string, unknown>;
  /** Source columns (or fields) to read: the mapping's values. */
  columns: readonly string[];
  /** The source column mapped to the object type's primary key. */
  keyColumn: string;
  mode: 'incremental' | 'full';
  cursorColumn: string | null;
  pageSize: number;
}

export interface SourcePage {
  rows: Record<string, unknown>[];
  /** The position after this page, given back to read the next one. */
  cursor: unknown;
  /** No rows after this page (now). */
  done: boolean;
}

export interface SourceReader {
  /** Reaches the source and says what it found (the connection test); throws when it cannot. */
  probe(): Promise<string>;
  /** The page after `cursor` (null: from the start). */
  readPage(spec: ReadSpec, cursor: unknown): Promise<SourcePage>;
  close(): Promise<void>;
}

/** Limits of what one source answer may hold in memory (files, endpoint answers). */
export const MAX_SOURCE_BYTES = 64 * 1024 * 1024;
/** How long a source may take to connect or answer one request. */
export const SOURCE_TIMEOUT_MS = 20_000;
