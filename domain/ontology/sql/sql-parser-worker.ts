// Thread entry of the ontology SQL parser (check-ontology-sql.ts): one query per message, parsed
// by PostgreSQL's own parser (libpg_query as WebAssembly) and checked against the allowlist.
import { parentPort } from 'node:worker_threads';
import { loadModule, parseSync, SqlError } from 'libpg-query';
import { type SqlCheck, type SqlCheckInput, sqlCheckOf } from './sql-allowlist.ts';

await loadModule();

parentPort?.on('message', (input: SqlCheckInput) => {
  let tree: ReturnType<typeof parseSync>;
  try {
    tree = parseSync(input.text);
  } catch (error) {
    if (!(error instanceof SqlError)) {
      // The parser ran out of stack (a deeply nested expression) or memory: its WebAssembly state is
      // no longer sound (the next parse reads out of bounds). Ending the thread gives the next
      // query a fresh module; the caller sees a RangeError.
      throw new RangeError(`the parser gave up: ${error instanceof Error ? error.message : String(error)}`);
    }
    const answer: SqlCheck = { ok: false, errorName: 'QueryParseError', message: error.message, sqlState: SYNTAX_ERROR };
    const at = error.sqlDetails?.cursorPosition;
    parentPort?.postMessage(at === undefined ? answer : { ...answer, position: at + 1 });
    return;
  }
  parentPort?.postMessage(sqlCheckOf(tree, input));
});

const SYNTAX_ERROR = '42601';
