// Wire shapes of ontology SQL (issue 15 item 5), after Foundry's executeOntology
// (SqlQueries v2) under our /api/v1 path and envelope; Foundry answers Arrow, we answer JSON.
import { z } from 'zod';
import { ObjectTypeApiName, OntologyParam, PropertyApiName } from './ontology.ts';

/** The spec's limits: one SELECT, at most 10,000 rows (the statement timeout is configured). */
export const SQL_MAX_ROWS = 10_000;
/** What one query may answer, counted as it arrives from PostgreSQL (rows, and anything else it sends). */
export const SQL_MAX_RESULT_BYTES = 16 * 1024 * 1024;
export const SQL_MAX_QUERY_CHARS = 100_000;
export const SQL_MAX_PARAMETERS = 100;

const SqlParameter = z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]);

export const ExecuteOntologySqlRequest = z.strictObject({
  query: z.string().min(1).max(SQL_MAX_QUERY_CHARS).meta({
    description: 'One SELECT over the object types the caller can read, each a table named by its apiName (quote it: "sales.Order").',
  }),
  parameters: z
    .array(SqlParameter)
    .max(SQL_MAX_PARAMETERS)
    .optional()
    .meta({ description: 'Positional values for $1, $2, … (named parameters are not supported).' }),
  rowLimit: z
    .number()
    .int()
    .min(1)
    .max(SQL_MAX_ROWS)
    .optional()
    .meta({ description: 'At most this many rows (default and maximum 10,000).' }),
  dryRun: z.boolean().optional().meta({ description: 'Parse and describe the query (columns and their types) without running it.' }),
  ontology: OntologyParam.optional().meta({
    description:
      'The ontology (API name or RID); needed only when the caller reads several (a session of an account in several companies).',
  }),
});
export type ExecuteOntologySqlRequest = z.infer<typeof ExecuteOntologySqlRequest>;

export const SqlColumn = z.object({
  name: z.string(),
  /** PostgreSQL's name of the type (`text`, `bigint`, `timestamp with time zone`, …). */
  type: z.string(),
});

export const ExecuteOntologySqlResponse = z.object({
  ontology: z.string().meta({ description: 'The API name of the ontology the query ran over.' }),
  columns: z.array(SqlColumn),
  rows: z.array(z.array(z.unknown())).meta({ description: 'One array per row, values in column order (empty on a dry run).' }),
  truncated: z.boolean().meta({ description: 'True when rowLimit cut the result.' }),
  dryRun: z.boolean(),
});
export type ExecuteOntologySqlResponse = z.infer<typeof ExecuteOntologySqlResponse>;

export const SqlTable = z.object({
  name: ObjectTypeApiName.meta({ description: 'The object type’s apiName: the table name (quote it in SQL).' }),
  objectTypeRid: z.string(),
  primaryKey: PropertyApiName,
  columns: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      dataType: z.string().meta({ description: 'The property type; `system` for __rev and __updated_at.' }),
    }),
  ),
});

export const OntologyDatabase = z.object({
  ontology: z.string(),
  /** The PostgreSQL schema the tables live in; it is the query's search_path. */
  schema: z.string(),
  dialect: z.literal('postgresql'),
  tables: z.array(SqlTable),
  limits: z.object({ maxRows: z.number().int(), statementTimeoutMs: z.number().int(), statements: z.literal(1) }),
});
export type OntologyDatabase = z.infer<typeof OntologyDatabase>;
