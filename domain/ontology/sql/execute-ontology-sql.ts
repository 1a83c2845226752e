import net from 'node:net';
import pg from 'pg';
import type { ExecuteOntologySqlRequest, ExecuteOntologySqlResponse } from '../../../schemas/ontology-sql.ts';
import { SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS } from '../../../schemas/ontology-sql.ts';
import type { Db } from '../../db/index.ts';
import type { Clock, OntologySqlSettings } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import type { Principal } from '../../principal.ts';
import { mayRead, openOntology } from '../data-access.ts';
import { lowerBackendPriority } from './backend-priority.ts';
import { checkOntologySql } from './check-ontology-sql.ts';
import { PortalQuery } from './portal-query.ts';
import { SQL_ROLE_CONNECTIONS, SQL_WORK_MEM, type SqlCredential, type SqlRole, sqlRoleOf } from './sql-roles.ts';

// POST /api/v1/sqlQueries/executeOntology: one read-only SELECT over the object types the caller
// can read. In order, each bounding what the next may cost:
// 1. PostgreSQL's own parser and an allowlist decide before anything runs (check-ontology-sql.ts):
//    one SELECT, allowed functions, the company's tables only.
// 2. A slot of the process's SQL budget (sql-gate.ts): at most SVC_SQL_MAX_CONNECTIONS queries at
//    once, fewer per company, a bounded queue, then rate_limited.
// 3. A connection of its own, logged in as the SQL role of the caller's company, credential and
//    set of types (sql-roles.ts; looked up or made only now, with the slot held, on a connection
//    of the slot, never the service's pool), in a READ ONLY transaction with the statement, lock and idle
//    timeouts and work_mem set locally (the role has them too), no parallel workers, always rolled
//    back; its backend at the lowest CPU priority where it runs on this machine (backend-priority.ts).
// 4. The rows read from a portal up to the row limit (portal-query.ts), while every byte that
//    arrives on the connection counts against SQL_MAX_RESULT_BYTES (below).
// A caller that goes away (`signal`) cancels its backend.

type Deps = { db: Db; clock: Clock; ontologySql?: OntologySqlSettings | undefined };

export async function executeOntologySql(
  deps: Deps,
  principal: Principal,
  request: ExecuteOntologySqlRequest,
  signal?: AbortSignal,
): Promise<ExecuteOntologySqlResponse> {
  const settings = sqlSettings(deps);
  const open = await openOntology(deps, principal, ontologyOf(principal, request.ontology));
  await checkOntologySql(request.query, open.ontology.schemaName, request.parameters ?? []);
  const roleInput = {
    companyId: open.ontology.companyId,
    schemaName: open.ontology.schemaName,
    credential: credentialOf(principal),
    tables: open.types.filter((t) => mayRead(open.access, t.apiName)).map((t) => t.apiName),
    statementTimeoutMs: settings.statementTimeoutMs,
  };
  const limit = request.rowLimit ?? SQL_MAX_ROWS;
  const dryRun = request.dryRun ?? false;

  // The role only with a slot: a request the gate refuses costs no role lookup or DDL.
  const release = await settings.gate.enter(open.ontology.companyId, signal);
  let client: pg.Client | undefined;
  try {
    client = await connectAsRole(settings, roleInput, await sqlRoleOf(settings.databaseUrl, roleInput));
    if (!client) {
      // The remembered role was dropped or lost its grants (a sweep, another process, an operator).
      client = await connectAsRole(settings, roleInput, await sqlRoleOf(settings.databaseUrl, roleInput, true));
      if (!client)
        throw new DomainError('rate_limited', 'The SQL role of this credential is being replaced; retry.', { retryAfterSeconds: 1 });
    }
    const guard = guardConnection(client, signal);
    await lowerBackendPriority(client);
    await client.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // temp_file_limit is the role's only (only a superuser may set it; sql-roles.ts). No parallel
    // workers: they would be processes of normal priority beyond the SQL budget's connections.
    await client.query(
      `SELECT set_config('statement_timeout', $1, true), set_config('lock_timeout', $1, true),
              set_config('idle_in_transaction_session_timeout', $1, true), set_config('work_mem', $2, true),
              set_config('search_path', $3, true), set_config('TimeZone', 'UTC', true),
              set_config('max_parallel_workers_per_gather', '0', true)`,
      [String(settings.statementTimeoutMs), SQL_WORK_MEM, quoteIdent(open.ontology.schemaName)],
    );
    guard.countFromNow();
    // One row more than the limit: whether the limit cut the result.
    const portal = new PortalQuery(request.query, request.parameters ?? [], dryRun ? 0 : limit + 1);
    client.query(portal as unknown as pg.QueryConfig);
    const result = await portal.result.catch((err: unknown) => {
      throw guard.stopped() ?? sqlFailure(err, settings);
    });
    const fields = result.fields ?? [];
    const typeNames = await namesOfTypes(
      client,
      fields.map((f) => f.dataTypeID),
    ).catch((err: unknown) => {
      throw guard.stopped() ?? err;
    });
    return {
      ontology: open.ontology.cellId,
      columns: fields.map((f) => ({ name: f.name, type: typeNames.get(f.dataTypeID) ?? `oid ${f.dataTypeID}` })),
      rows: result.rows.slice(0, limit).map((row) => row.map(jsonValue)),
      truncated: result.rows.length > limit,
      dryRun,
    };
  } finally {
    // Never committed: whatever the statement did ends with the connection.
    await client?.end();
    release();
  }
}

/**
 * A connection logged in as `role`, once its grants on the schema and every table are checked (the
 * role may come from memory); undefined when the role cannot log in or lacks a grant.
 */
async function connectAsRole(settings: OntologySqlSettings, input: { schemaName: string; tables: readonly string[] }, role: SqlRole) {
  const url = new URL(settings.databaseUrl);
  url.username = role.name;
  url.password = role.password; // hex: nothing to escape
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 10_000 });
  // A lost connection rejects the query in flight; the event itself must not crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    const code = (err as { code?: unknown }).code;
    if (code === TOO_MANY_CONNECTIONS) {
      throw new DomainError(
        'rate_limited',
        `At most ${SQL_ROLE_CONNECTIONS} ontology SQL queries of this credential run at once across the service; retry shortly.`,
        { retryAfterSeconds: 1 },
      );
    }
    if (code === INVALID_PASSWORD || code === INVALID_AUTHORIZATION) return undefined;
    throw err;
  }
  const { rows } = await client.query<{ usable: boolean }>(
    `SELECT has_schema_privilege($1, 'USAGE') AND coalesce(bool_and(has_table_privilege(format('%I.%I', $1, t), 'SELECT')), true) AS usable
     FROM unnest($2::text[]) AS t`,
    [input.schemaName, input.tables],
  );
  if (rows[0]?.usable) return client;
  await client.end();
  return undefined;
}

/**
 * Stops the query when its answer outgrows the byte budget or the caller goes away. The bytes are
 * counted as they arrive on the socket, before pg assembles them into messages: pg buffers a whole
 * message (a row, an error text) before handing it on, so counting rows would come too late for
 * one huge row (`SELECT repeat('x', 200000000)`, a json_agg of everything). Whatever the server
 * sends, the process holds at most the budget plus one socket read per query. Stopping destroys
 * the socket (the server fails its next write and ends the backend) and sends PostgreSQL's cancel
 * request (no privilege needed; it reaches a backend that is computing and writes nothing).
 */
function guardConnection(client: pg.Client, signal: AbortSignal | undefined) {
  const socket = (client as unknown as { connection: { stream: net.Socket } }).connection.stream;
  let counting = false;
  let received = 0;
  let reason: DomainError | undefined;
  const stop = (why: DomainError) => {
    if (reason) return;
    reason = why;
    sendCancelRequest(client);
    socket.destroy();
  };
  socket.on('data', (chunk: Buffer) => {
    if (!counting) return;
    received += chunk.length;
    if (received > SQL_MAX_RESULT_BYTES) {
      stop(
        new DomainError(
          'sql_query_failed',
          `The result is larger than ${SQL_MAX_RESULT_BYTES / 1024 / 1024} MiB, the most one query may answer: select fewer rows or columns, or aggregate.`,
          { details: { errorName: 'ResultTooLarge', maxBytes: SQL_MAX_RESULT_BYTES } },
        ),
      );
    }
  });
  const onAbort = () =>
    stop(new DomainError('sql_query_failed', 'The client went away: the query was cancelled.', { details: { errorName: 'Cancelled' } }));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return {
    countFromNow: () => {
      counting = true;
    },
    stopped: () => reason,
  };
}

/** PostgreSQL's CancelRequest for the client's backend, on a connection of its own; best effort. */
function sendCancelRequest(client: pg.Client): void {
  const { processID, secretKey } = client as unknown as { processID?: number; secretKey?: number };
  if (processID === undefined || secretKey === undefined) return;
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  message.writeInt32BE(processID, 8);
  message.writeInt32BE(secretKey, 12);
  const socket = client.host.startsWith('/')
    ? net.connect(`${client.host}/.s.PGSQL.${client.port}`)
    : net.connect(client.port, client.host);
  socket.setTimeout(5_000, () => socket.destroy());
  socket.on('error', () => {});
  socket.on('connect', () => socket.end(message));
}

const CANCEL_REQUEST_CODE = 80877102;

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

/** A schema name as search_path wants it. Our own name (ontology_<company id>), never user input. */
const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function namesOfTypes(client: pg.Client, oids: number[]): Promise<Map<number, string>> {
  if (oids.length === 0) return new Map();
  const { rows } = await client.query<{ oid: number; name: string }>(
    'SELECT oid::int AS oid, format_type(oid, NULL) AS name FROM pg_type WHERE oid = ANY($1::oid[])',
    [oids],
  );
  return new Map(rows.map((r) => [r.oid, r.name]));
}

/** JSON of a value as pg read it: timestamps as ISO 8601, bytes as PostgreSQL's hex form. */
function jsonValue(v: unknown): unknown {
  if (v instanceof Date) {
    // PostgreSQL's timestamps reach year 294276, JavaScript's Date only 275760.
    if (Number.isNaN(v.getTime())) {
      throw new DomainError(
        'sql_query_failed',
        'A timestamp in the result lies outside the years -271821 to 275760 that JSON answers can carry: cast it to text.',
        {
          details: { errorName: 'ValueOutOfRange' },
        },
      );
    }
    return v.toISOString();
  }
  if (Buffer.isBuffer(v)) return `\\x${v.toString('hex')}`;
  if (Array.isArray(v)) return v.map(jsonValue);
  return v;
}

const TIMEOUT = '57014';
const LOCK_NOT_AVAILABLE = '55P03'; // lock_timeout
const TOO_MANY_CONNECTIONS = '53300'; // the SQL role's CONNECTION LIMIT
const INVALID_PASSWORD = '28P01'; // the role was dropped, or made again with a new password
const INVALID_AUTHORIZATION = '28000'; // no such role (trust authentication)
const PROTOCOL_VIOLATION = '08P01'; // e.g. the parameters do not match the placeholders
const PERMISSION_DENIED = '42501';
const OUT_OF_MEMORY = '53200'; // the backend's address-space ceiling (infra/postgres/embedded-postgres.ts)

/**
 * PostgreSQL's error as ours: the statement and lock timeouts are `timeout`; class 42 (syntax, unknown or
 * unreadable names, type mismatches) and wrong parameters are `query_invalid`; the rest happened
 * while running (a write refused by the read-only transaction, division by zero, out of memory):
 * `sql_query_failed`.
 */
function sqlFailure(err: unknown, settings: OntologySqlSettings): unknown {
  const code = (err as { code?: unknown }).code;
  if (!(err instanceof Error) || typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return err;
  const position = (err as { position?: string }).position;
  const details = { sqlState: code, ...(position ? { position: Number(position) } : {}) };
  if (code === TIMEOUT || code === LOCK_NOT_AVAILABLE) {
    const what = code === TIMEOUT ? 'ran' : 'waited for a lock';
    return new DomainError('timeout', `The query ${what} longer than ${settings.statementTimeoutMs} ms and was cancelled.`, {
      details: { ...details, statementTimeoutMs: settings.statementTimeoutMs },
    });
  }
  if (code === OUT_OF_MEMORY) {
    return new DomainError(
      'sql_query_failed',
      'The query needed more memory than one query may use, and was stopped: build smaller values (fewer rows in one string_agg, array_agg or json_agg), or aggregate in steps.',
      { details: { errorName: 'QueryOutOfMemory', ...details } },
    );
  }
  if (code.startsWith('42') || code === PROTOCOL_VIOLATION) {
    const errorName = code === PERMISSION_DENIED ? 'QueryPermissionDenied' : 'QueryParseError';
    return new DomainError('query_invalid', err.message, { details: { errorName, ...details } });
  }
  return new DomainError('sql_query_failed', err.message, { details: { errorName: 'OntologyQueryFailed', ...details } });
}
