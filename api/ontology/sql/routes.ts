import type { Context } from 'koa';
import { z } from 'zod';
import { describeOntologyDatabase, executeOntologySql, refuseDirectDatabaseAccess } from '../../../domain/ontology/index.ts';
import { OntologyParams } from '../../../schemas/ontology.ts';
import { ExecuteOntologySqlRequest, ExecuteOntologySqlResponse, OntologyDatabase } from '../../../schemas/ontology-sql.ts';
import { JsonText } from '../../http/envelope.ts';
import { defineRoute } from '../../http/route.ts';

// Ontology SQL (issue 15 item 5). Keys, web sessions and app tickets (for their own app's types)
// are accepted; the caller's readable object types (domain/ontology/data-access.ts) are the tables.
// `.../database/sync` and `.../database/credentials` (spec G, paths only) answer 409 database_access_unavailable with
// the reason (domain/ontology/sql/direct-database-access.ts).

/** Aborts when the connection closes before the answer was written: the caller went away, its query is cancelled. */
function clientGone(ctx: Context): AbortSignal {
  const gone = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) gone.abort();
  });
  return gone.signal;
}

export const executeOntologySqlRoute = defineRoute({
  method: 'post',
  path: '/api/v1/sqlQueries/executeOntology',
  operationId: 'executeOntologySql',
  summary: 'Run one read-only SELECT over the object types the caller can read',
  description:
    'Each readable object type is a table named by its apiName (quote it: `SELECT * FROM "sales.Order"`), one column per property plus `__rev` and `__updated_at`. One SELECT, checked by the PostgreSQL parser against an allowlist of functions before it runs; at most 10,000 rows (`truncated` says when the limit cut) and 16 MiB of result (`sql_query_failed`, `ResultTooLarge`), a statement timeout (20 s by default), in a read-only transaction that is always rolled back; a few run at once per service and per company, and 120 requests a minute per company and source IP (429 beyond). Reads change nothing: no dry-run header (use `dryRun` to parse and describe without running).',
  tags: ['ontologies'],
  rateLimit: { perMinute: 120, per: 'tenant' },
  bodyLimit: 512 * 1024,
  auth: 'credential',
  body: ExecuteOntologySqlRequest,
  response: { status: 200, description: 'Columns with their PostgreSQL types, rows as arrays.', schema: ExecuteOntologySqlResponse },
  errors: [
    'unauthorized',
    'invalid_session',
    'invalid_payload',
    'rate_limited',
    'company_required',
    'ontology_not_found',
    'query_invalid',
    'sql_query_failed',
    'timeout',
    'service_unavailable',
  ],
  handler: async ({ deps, principal, body, ctx }) => ({
    data: new JsonText((await executeOntologySql(deps, principal, body, clientGone(ctx))).json),
  }),
});

export const describeOntologyDatabaseRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/database',
  operationId: 'describeOntologyDatabase',
  summary: 'The SQL surface of an ontology as the caller sees it',
  tags: ['ontologies'],
  auth: 'credential',
  params: OntologyParams,
  response: {
    status: 200,
    description: 'The tables (readable object types), their columns and SQL types, and the limits.',
    schema: OntologyDatabase,
  },
  errors: ['unauthorized', 'invalid_session', 'invalid_path', 'ontology_not_found', 'service_unavailable'],
  handler: async ({ deps, principal, params }) => ({ data: await describeOntologyDatabase(deps, principal, params.ontology) }),
});

/** A POST that is refused for every caller who can read the ontology: nothing is written, so no dry run. */
const refusedDatabaseRoute = (what: 'sync' | 'credentials', operationId: string, summary: string) =>
  defineRoute({
    method: 'post',
    path: `/api/v1/ontologies/{ontology}/database/${what}`,
    operationId,
    summary,
    description:
      what === 'credentials'
        ? 'Not offered: always 409 database_access_unavailable (details.reason gate_bypass). A direct PostgreSQL login would read the object tables ' +
          'past the SQL gate (object security policies and markings, the function allowlist, per-company caps). BI tools use POST /api/v1/sqlQueries/executeOntology.'
        : 'Not offered: always 409 database_access_unavailable (details.reason live_tables). Ontology SQL reads the live object types: there is no copy to sync.',
    tags: ['ontologies'],
    auth: 'credential',
    params: OntologyParams,
    response: {
      status: 200,
      description: 'Never answered: the operation is not offered (409 database_access_unavailable).',
      schema: z.object({}),
    },
    errors: ['unauthorized', 'invalid_session', 'invalid_path', 'ontology_not_found', 'database_access_unavailable'],
    handler: async ({ deps, principal, params }) => refuseDirectDatabaseAccess(deps, principal, params.ontology, what),
  });

export const ontologyDatabaseSyncRoute = refusedDatabaseRoute(
  'sync',
  'syncOntologyDatabase',
  'Not offered: ontology SQL reads the live tables (409 database_access_unavailable)',
);
export const ontologyDatabaseCredentialsRoute = refusedDatabaseRoute(
  'credentials',
  'createOntologyDatabaseCredentials',
  'Not offered: no direct PostgreSQL login is issued (409 database_access_unavailable)',
);

export const ontologySqlRoutes = [
  executeOntologySqlRoute,
  describeOntologyDatabaseRoute,
  ontologyDatabaseSyncRoute,
  ontologyDatabaseCredentialsRoute,
];
