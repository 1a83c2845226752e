import type { ExecuteOntologySqlRequest } from '../../../schemas/ontology-sql.ts';
import { SQL_MAX_ROWS } from '../../../schemas/ontology-sql.ts';
import type { Db } from '../../db/index.ts';
import type { Clock, OntologySqlSettings } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import type { Principal } from '../../principal.ts';
import { ThreadChannel } from '../../threads/index.ts';
import { mayRead, type OpenOntology, openOntology } from '../data-access.ts';
import { policedSelectSql } from '../object-security.ts';
import type { ObjectTypeRecord } from '../repository.ts';
import { checkOntologySql } from './check-ontology-sql.ts';
import { rewritePolicedSql } from './policed-references.ts';
import type { SqlReadInput, SqlReadOutput } from './read-ontology-sql.ts';
import { type SqlCredential, type SqlRole, sqlRoleOf } from './sql-roles.ts';

// POST /api/v1/sqlQueries/executeOntology: one read-only SELECT over the object types the caller
// can read. In order, each bounding what the next may cost:
// 1. PostgreSQL's own parser and an allowlist decide before anything runs (check-ontology-sql.ts):
//    one SELECT, allowed functions, the company's tables only.
// 2. A slot of the process's SQL budget (sql-gate.ts): at most SVC_SQL_MAX_CONNECTIONS queries at
//    once, fewer per company, a bounded queue, then rate_limited.
// 3. The SQL role of the caller's company, credential and set of types (sql-roles.ts; looked up
//    or made only now, with the slot held, on a connection of its own, never the service's pool).
// 4. On the SQL reader thread (read-ontology-sql.ts): a connection logged in as that role, in a
//    READ ONLY transaction with the statement, lock and idle timeouts and work_mem set locally (the
//    role has them too), no parallel workers, always rolled back; its backend at a low CPU
//    priority where it runs on this machine (backend-priority.ts); the rows read from a portal up
//    to the row limit (portal-query.ts), every byte that arrives counted against
//    SQL_MAX_RESULT_BYTES; the answer as JSON text, so the result never lands on this thread's heap.
// A caller that goes away (`signal`) cancels its backend.

type Deps = { db: Db; clock: Clock; ontologySql?: OntologySqlSettings | undefined };

/** The answer (ExecuteOntologySqlResponse) as JSON text, made on the reader thread. */
export interface OntologySqlAnswer {
  json: string;
}

/** One thread for every query of the process: reading results is I/O-bound, and one heap keeps them all off the event loop's. */
const reader = new ThreadChannel<SqlReadInput, SqlReadOutput>(new URL('./sql-reader-thread.ts', import.meta.url));

export async function executeOntologySql(
  deps: Deps,
  principal: Principal,
  request: ExecuteOntologySqlRequest,
  signal?: AbortSignal,
): Promise<OntologySqlAnswer> {
  const settings = sqlSettings(deps);
  const open = await openOntology(deps, principal, ontologyOf(principal, request.ontology));
  const readable = open.types.filter((t) => sqlReadable(open, t));
  // Types the caller's security policies filter: read through the derived table search reads.
  const selects = new Map(
    readable.flatMap((t) => {
      const select = policedSelectSql(deps.db, open.ontology, t);
      return select === null ? [] : [[t.apiName, select] as const];
    }),
  );
  const references = await checkOntologySql(request.query, open.ontology.schemaName, request.parameters ?? [], [...selects.keys()]);
  const policed = rewritePolicedSql(request.query, references, selects);
  const roleInput = {
    companyId: open.ontology.companyId,
    schemaName: open.ontology.schemaName,
    credential: credentialOf(principal),
    tables: readable.map((t) => t.apiName),
    statementTimeoutMs: settings.statementTimeoutMs,
  };
  const read = (role: SqlRole) =>
    reader.call(
      {
        databaseUrl: settings.databaseUrl,
        role,
        schemaName: roleInput.schemaName,
        tables: roleInput.tables,
        query: policed.text,
        parameters: request.parameters ?? [],
        rowLimit: request.rowLimit ?? SQL_MAX_ROWS,
        dryRun: request.dryRun ?? false,
        statementTimeoutMs: settings.statementTimeoutMs,
        backendNice: settings.backendNice,
        ontology: open.ontology.cellId,
      },
      signal,
    );

  // The role only with a slot: a request the gate refuses costs no role lookup or DDL.
  const release = await settings.gate.enter(open.ontology.companyId, signal);
  try {
    let answer = await read(await sqlRoleOf(settings.databaseUrl, roleInput));
    // The remembered role was dropped or lost its grants (a sweep, another process, an operator).
    if ('roleUnusable' in answer) answer = await read(await sqlRoleOf(settings.databaseUrl, roleInput, true));
    if ('roleUnusable' in answer)
      throw new DomainError('rate_limited', 'The SQL role of this credential is being replaced; retry.', { retryAfterSeconds: 1 });
    return answer;
  } catch (error) {
    // PostgreSQL's position counts in the text it ran: the caller's names their own.
    if (error instanceof DomainError && references.length > 0 && typeof error.details?.position === 'number') {
      error.details.position = policed.originalPosition(error.details.position);
    }
    throw error;
  } finally {
    release();
  }
}

/**
 * The types a caller reads in SQL: its readable ones. A type its security policies filter is read
 * through the same derived table as search (each reference rewritten, policed-references.ts).
 */
export const sqlReadable = (open: OpenOntology, t: ObjectTypeRecord) => mayRead(open.access, t.apiName);

const credentialOf = (principal: Principal): SqlCredential => ({
  kind: principal.kind === 'key' ? (principal.agent ? 'agent' : 'key') : principal.kind,
  accountId: principal.account.id,
});

export function sqlSettings(deps: { ontologySql?: OntologySqlSettings | undefined }): OntologySqlSettings {
  if (deps.ontologySql) return deps.ontologySql;
  throw new DomainError('service_unavailable', 'Ontology SQL is not available in this process.');
}

/**
 * The ontology a query runs over: the one named, else the caller's only company (a key's company,
 * a ticket's app's company, a session's only license); a session of several companies must name it.
 */
function ontologyOf(principal: Principal, named: string | undefined): string {
  if (named !== undefined) return named;
  if (principal.kind === 'key') return principal.company.cellId;
  if (principal.kind === 'ticket') return principal.ticket.namespace;
  const companies = [...new Set(principal.licenses.map((l) => l.cellId))];
  if (companies.length === 1) return companies[0]!;
  if (companies.length === 0) throw new DomainError('ontology_not_found', 'No ontology: name one in `ontology`.');
  throw new DomainError('company_required', 'This account acts for several companies: name the ontology in `ontology`.', {
    details: { companies },
  });
}
