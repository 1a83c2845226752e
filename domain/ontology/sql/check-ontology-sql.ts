import { DomainError } from '../../errors.ts';
import { WorkerPool, WorkerTimeoutError } from '../../threads/index.ts';
import type { PolicedReference } from './policed-references.ts';
import type { SqlCheck, SqlCheckInput } from './sql-allowlist.ts';
import type { SqlParameterValue } from './sql-size-caps.ts';

// Every ontology SQL text is parsed by PostgreSQL's own parser and checked (sql-allowlist.ts)
// before anything runs. On a worker thread: the parse of a large hostile text never holds the
// event loop, and a parser that overflows its stack (which leaves the WebAssembly module unusable)
// ends its thread instead of the service's parser. The text is at most SQL_MAX_QUERY_CHARS, so the
// parse is linear in a bounded input; the time limit catches anything else.

/** Far above any parse measured (100,000 characters of nested expressions: under 0.3 s). */
const PARSE_TIME_LIMIT_MS = 5_000;

const parser = new WorkerPool<SqlCheckInput, SqlCheck>({
  script: new URL('./sql-parser-worker.ts', import.meta.url),
  size: 1,
  timeLimitMs: PARSE_TIME_LIMIT_MS,
});

/**
 * Throws query_invalid (details.errorName says why) unless `text` is one allowed SELECT; `parameters`
 * are the values of $1, $2, … (a size cap may be met by a parameter). Answers where the query
 * names the `policed` tables (policed-references.ts).
 */
export async function checkOntologySql(
  text: string,
  schemaName: string,
  parameters: readonly SqlParameterValue[] = [],
  policed: readonly string[] = [],
): Promise<PolicedReference[]> {
  let check: SqlCheck;
  try {
    check = await parser.run({ text, schemaName, parameters, policed });
  } catch (error) {
    if (!(error instanceof WorkerTimeoutError || (error instanceof Error && error.name === 'RangeError'))) throw error;
    throw new DomainError('query_invalid', 'The query is nested too deeply or is too complex to parse; simplify it.', {
      details: { errorName: 'QueryTooComplex' },
    });
  }
  if (check.ok) return check.references;
  const { ok: _, errorName, message, ...rest } = check;
  throw new DomainError('query_invalid', message, { details: { errorName, ...rest } });
}
