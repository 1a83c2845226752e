import { parse } from 'csv-parse/sync';
import { DomainError } from '../../errors.ts';

// Rows of one source file, by format. CSV: a header line names the columns (values stay text;
// the sync converts them to the properties' types). JSON lines: one object per line.
// Parquet: hyparquet, the rows as objects.

export type FileFormat = 'csv' | 'jsonl' | 'parquet';

const badFile = (name: string, why: string) => new DomainError('invalid_payload', `${name}: ${why}`, { details: { file: name } });

export async function rowsOfFile(name: string, bytes: Uint8Array, format: FileFormat): Promise<Record<string, unknown>[]> {
  switch (format) {
    case 'csv':
      try {
        return parse(Buffer.from(bytes), { columns: true, bom: true, skip_empty_lines: true }) as Record<string, unknown>[];
      } catch (err) {
        throw badFile(name, `not CSV with a header line (${(err as Error).message.slice(0, 200)})`);
      }
    case 'jsonl':
      return Buffer.from(bytes)
        .toString('utf8')
        .split('\n')
        .flatMap((line, i) => {
          if (line.trim() === '') return [];
          let value: unknown;
          try {
            value = JSON.parse(line);
          } catch {
            throw badFile(name, `line ${i + 1} is not JSON`);
          }
          if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badFile(name, `line ${i + 1} is not an object`);
          return [value as Record<string, unknown>];
        });
    case 'parquet': {
      const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      // Loaded on first Parquet file: most processes never read one.
      const { parquetReadObjects } = await import('hyparquet');
      try {
        return (await parquetReadObjects({ file })) as Record<string, unknown>[];
      } catch (err) {
        throw badFile(name, `not a Parquet file (${(err as Error).message.slice(0, 200)})`);
      }
    }
  }
}

/**
 * A page of rows from files taken in name order: `cursor` is {file, offset} (the rows of `file`
 * already taken). An incremental sync keeps it between builds, so files named after it (and rows
 * appended to it) are what the next build reads; a full refresh starts from null each build.
 */
export async function pageOfFiles(
  names: readonly string[],
  rowsOf: (name: string) => Promise<Record<string, unknown>[]>,
  cursor: { file: string; offset: number } | null,
  pageSize: number,
) {
  const rows: Record<string, unknown>[] = [];
  let at = cursor;
  for (const name of names) {
    if (at && name < at.file) continue;
    const offset = at && name === at.file ? at.offset : 0;
    const all = await rowsOf(name);
    const taken = all.slice(offset, offset + pageSize - rows.length);
    rows.push(...taken);
    at = { file: name, offset: offset + taken.length };
    if (rows.length === pageSize) {
      const more = at.offset < all.length || names.some((n) => n > name);
      return { rows, cursor: at, done: !more };
    }
  }
  return { rows, cursor: at, done: true };
}
