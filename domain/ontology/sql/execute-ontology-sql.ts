import pg from 'pg';
import type { ExecuteOntologySqlRequest, ExecuteOntologySqlResponse } from '../../../schemas/ontology-sql.ts';
import { SQL_MAX_ROWS } from '../../../schemas/ontology-sql.ts';
import type { Db } from '../../db/database.ts';
import type { Clock, OntologySqlSettings } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import { visitorOf } from '../../hosting/visitor.ts';
import type { Principal } from '../../principal.ts';
import { mayRead, openOntology } from '../data-access.ts';
import { PortalQuery } from './portal-query.ts';
import { ensureSqlRole, SQL_ROLE_CONNECTIONS } from './sql-roles.ts';

// POST /api/v1/sqlQueries/executeOntology: one read-only statement over the object types the
// caller can read. It runs on a connection of its own, logged in as the SQL role of that set of
// types (sql-roles.ts), in a READ ONLY transaction with a statement timeout, and is always rolled
// back; the user's text goes to PostgreSQL as-is, as one extended-protocol statement.

type Deps = { db: Db; clock: Clock; ontologySql?: OntologySqlSettings | undefined };

export async function executeOntologySql(
  deps: Deps,
  principal: Principal,
  request: ExecuteOntologySqlRequest,
): Promise<ExecuteOntologySqlResponse> {
  const settings = sqlSettings(deps);
  const open = await openOntology(deps, principal, await ontologyOf(deps.db, principal, request.ontology));
  const role = await ensureSqlRole(deps.db, {
    companyId: open.ontology.companyId,
    schemaName: open.ontology.schemaName,
    tables: open.types.filter((t) => mayRead(open.access, t.apiName)).map((t) => t.apiName),
  });
  const limit = request.rowLimit ?? SQL_MAX_ROWS;
  const dryRun = request.dryRun ?? false;

  const url = new URL(settings.databaseUrl);
  url.username = role.name;
  url.password = role.password; // hex: nothing to escape
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 10_000 });
  // A lost connection rejects the query in flight; the event itself must not crash the process.
  client.on('error', () => {});
  await client.connect().catch((err: unknown) => {
    throw (err as { code?: unknown }).code === TOO_MANY_CONNECTIONS
      ? new DomainError('rate_limited', `At most ${SQL_ROLE_CONNECTIONS} queries over these object types run at once; retry shortly.`, {
          retryAfterSeconds: 1,
        })
      : err;
  });
  try {
    await client.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(
      `SELECT set_config('statement_timeout', $1, true), set_config('idle_in_transaction_session_timeout', $1, true),
              set_config('search_path', $2, true), set_config('TimeZone', 'UTC', true)`,
      [String(settings.statementTimeoutMs), quoteIdent(open.ontology.schemaName)],
    );
    // One row more than the limit: whether the limit cut the result.
    const portal = new PortalQuery(request.query, request.parameters ?? [], dryRun ? 0 : limit + 1);
    client.query(portal as unknown as pg.QueryConfig);
    const result = await portal.result.catch((err: unknown) => {
      throw sqlFailure(err, settings);
    });
    if (!result.fields) {
      throw new DomainError('query_invalid', 'Only a query that returns rows (a SELECT) may run here.', {
        details: { errorName: 'NotAQuery' },
      });
    }
    const typeNames = await namesOfTypes(
      client,
      result.fields.map((f) => f.dataTypeID),
    );
    return {
      ontology: open.ontology.cellId,
      columns: result.fields.map((f) => ({ name: f.name, type: typeNames.get(f.dataTypeID) ?? `oid ${f.dataTypeID}` })),
      rows: result.rows.slice(0, limit).map((row) => row.map(jsonValue)),
      truncated: result.rows.length > limit,
      dryRun,
    };
  } finally {
    // Never committed: whatever the statement did (temporary tables, settings) ends with the connection.
    await client.end();
  }
}

export function sqlSettings(deps: { ontologySql?: OntologySqlSettings | undefined }): OntologySqlSettings {
  if (deps.ontologySql) return deps.ontologySql;
  throw new DomainError('service_unavailable', 'Ontology SQL is not available in this process.');
}

/**
 * The ontology a query runs over: the one named, else the caller's only company (a key's company,
 * a ticket's app's company, a session's only license); a session of several companies must name it.
 */
async function ontologyOf(db: Db, principal: Principal, named: string | undefined): Promise<string> {
  if (named !== undefined) return named;
  if (principal.kind === 'key') return principal.company.cellId;
  if (principal.kind === 'ticket') return principal.ticket.namespace;
  const companies = [...new Set((await visitorOf(db, principal)).licenses.map((l) => l.cellId))];
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
  if (v instanceof Date) return v.toISOString();
  if (Buffer.isBuffer(v)) return `\\x${v.toString('hex')}`;
  if (Array.isArray(v)) return v.map(jsonValue);
  return v;
}

const TIMEOUT = '57014';
const TOO_MANY_CONNECTIONS = '53300'; // the SQL role's CONNECTION LIMIT
const PROTOCOL_VIOLATION = '08P01'; // e.g. the parameters do not match the placeholders
const PERMISSION_DENIED = '42501';

/**
 * PostgreSQL's error as ours: the statement timeout is `timeout`; class 42 (syntax, unknown or
 * unreadable names, type mismatches) and wrong parameters are `query_invalid`; the rest happened
 * while running (a write refused by the read-only transaction, division by zero): `sql_query_failed`.
 */
function sqlFailure(err: unknown, settings: OntologySqlSettings): unknown {
  const code = (err as { code?: unknown }).code;
  if (!(err instanceof Error) || typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return err;
  const position = (err as { position?: string }).position;
  const details = { sqlState: code, ...(position ? { position: Number(position) } : {}) };
  if (code === TIMEOUT) {
    return new DomainError('timeout', `The query ran longer than ${settings.statementTimeoutMs} ms and was cancelled.`, {
      details: { ...details, statementTimeoutMs: settings.statementTimeoutMs },
    });
  }
  if (code.startsWith('42') || code === PROTOCOL_VIOLATION) {
    const errorName = code === PERMISSION_DENIED ? 'QueryPermissionDenied' : 'QueryParseError';
    return new DomainError('query_invalid', err.message, { details: { errorName, ...details } });
  }
  return new DomainError('sql_query_failed', err.message, { details: { errorName: 'OntologyQueryFailed', ...details } });
}
