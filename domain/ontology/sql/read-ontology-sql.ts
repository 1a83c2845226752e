import net from 'node:net';
import pg from 'pg';
import type { ExecuteOntologySqlRequest, ExecuteOntologySqlResponse } from '../../../schemas/ontology-sql.ts';
import { SQL_MAX_RESULT_BYTES } from '../../../schemas/ontology-sql.ts';
import { DomainError } from '../../errors.ts';
import { lowerBackendPriority } from './backend-priority.ts';
import { PortalQuery } from './portal-query.ts';
import { SQL_ROLE_CONNECTIONS, SQL_WORK_MEM, type SqlRole } from './sql-roles.ts';

// The part of an ontology SQL query that touches its result, run on the SQL reader thread
// (sql-reader-thread.ts; execute-ontology-sql.ts decides everything before it): the connection as
// the caller's SQL role, the transaction and its limits, the statement, and the answer as JSON
// text. A hostile result (rows of a megabyte, a 16 MiB row) is decoded, counted and collected on
// that thread's heap, so no company's result ever pauses the event loop that answers everyone.

export interface SqlReadInput {
  /** The service's connection string; the role's name and password replace its user's. */
  databaseUrl: string;
  role: SqlRole;
  schemaName: string;
  /** The tables the role must be able to read (else it is stale: `roleUnusable`). */
  tables: readonly string[];
  query: string;
  parameters: NonNullable<ExecuteOntologySqlRequest['parameters']>;
  rowLimit: number;
  dryRun: boolean;
  statementTimeoutMs: number;
  backendNice: number;
  /** The ontology's API name, for the answer. */
  ontology: string;
}

/** The answer's JSON text, or: the role cannot log in or lacks a grant (dropped or made again elsewhere). */
export type SqlReadOutput = { json: string } | { roleUnusable: true };

export async function readOntologySql(input: SqlReadInput, signal: AbortSignal): Promise<SqlReadOutput> {
  const client = await connectAsRole(input);
  if (!client) return { roleUnusable: true };
  try {
    const guard = guardConnection(client, signal);
    await lowerBackendPriority(client, input.backendNice);
    await client.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // temp_file_limit is the role's only (only a superuser may set it; sql-roles.ts). No parallel
    // workers: they would be processes of normal priority beyond the SQL budget's connections.
    await client.query(
      `SELECT set_config('statement_timeout', $1, true), set_config('lock_timeout', $1, true),
              set_config('idle_in_transaction_session_timeout', $1, true), set_config('work_mem', $2, true),
              set_config('search_path', $3, true), set_config('TimeZone', 'UTC', true),
              set_config('max_parallel_workers_per_gather', '0', true)`,
      [String(input.statementTimeoutMs), SQL_WORK_MEM, quoteIdent(input.schemaName)],
    );
    guard.countFromNow();
    // One row more than the limit: whether the limit cut the result.
    const portal = new PortalQuery(input.query, input.parameters, input.dryRun ? 0 : input.rowLimit + 1);
    client.query(portal as unknown as pg.QueryConfig);
    const result = await portal.result.catch((err: unknown) => {
      throw guard.stopped() ?? sqlFailure(err, input.statementTimeoutMs);
    });
    const fields = result.fields ?? [];
    const typeNames = await namesOfTypes(
      client,
      fields.map((f) => f.dataTypeID),
    ).catch((err: unknown) => {
      throw guard.stopped() ?? err;
    });
    const answer: ExecuteOntologySqlResponse = {
      ontology: input.ontology,
      columns: fields.map((f) => ({ name: f.name, type: typeNames.get(f.dataTypeID) ?? `oid ${f.dataTypeID}` })),
      rows: result.rows.slice(0, input.rowLimit).map((row) => row.map(jsonValue)),
      truncated: result.rows.length > input.rowLimit,
      dryRun: input.dryRun,
    };
    return { json: JSON.stringify(answer) };
  } finally {
    // Never committed: whatever the statement did ends with the connection.
    await client.end();
  }
}

/**
 * A connection logged in as `role`, once its grants on the schema and every table are checked (the
 * role may come from memory); undefined when the role cannot log in or lacks a grant.
 */
async function connectAsRole(input: SqlReadInput) {
  const url = new URL(input.databaseUrl);
  url.username = input.role.name;
  url.password = input.role.password; // hex: nothing to escape
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
function sqlFailure(err: unknown, statementTimeoutMs: number): unknown {
  const code = (err as { code?: unknown }).code;
  if (!(err instanceof Error) || typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return err;
  const position = (err as { position?: string }).position;
  const details = { sqlState: code, ...(position ? { position: Number(position) } : {}) };
  if (code === TIMEOUT || code === LOCK_NOT_AVAILABLE) {
    const what = code === TIMEOUT ? 'ran' : 'waited for a lock';
    return new DomainError('timeout', `The query ${what} longer than ${statementTimeoutMs} ms and was cancelled.`, {
      details: { ...details, statementTimeoutMs },
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
