import type { QueryExport } from '../../schemas/manifest/exports.ts';
import type { SearchObjectsRequest, WhereClause } from '../../schemas/ontology.ts';
import { DomainError } from '../errors.ts';
import { expressionsOf } from './evaluate-step.ts';
import { resolveValuesOffThread } from './evaluation-threads.ts';
import { BudgetExceededError, ExpressionError } from './expression.ts';

type Scalar = string | number | boolean | null;
type Input = Record<string, unknown>;

/** Not given: a condition on an input parameter the caller left out is dropped. */
const ABSENT = Symbol('absent');

/** The value of each `=…` of the where clause. */
type Resolved = ReadonlyMap<string, unknown>;

/**
 * A where value: `=…` is an expression over `input` (the workflows' evaluator), absent when it
 * yields nothing (an optional parameter not given); anything else, a literal null included, is itself.
 */
function resolve(value: Scalar, resolved: Resolved): unknown {
  if (typeof value !== 'string' || !resolved.has(value)) return value;
  const v = resolved.get(value);
  return v === undefined || v === null ? ABSENT : v;
}

/**
 * The where clause's expressions, evaluated together on a worker thread under one budget. An
 * expression that fails or runs out of budget with this input is the query's fault: query_invalid.
 */
async function resolveWhere(item: QueryExport, input: Input): Promise<Resolved> {
  const sources = [...new Set(expressionsOf(item.where).map(([text]) => text))];
  try {
    const values = await resolveValuesOffThread(sources, { input });
    return new Map(sources.map((source, i) => [source, values[i]]));
  } catch (err) {
    if (!(err instanceof ExpressionError)) throw err;
    throw new DomainError('query_invalid', `The API ${item.name}: ${err.message}`, {
      details: { errorName: err instanceof BudgetExceededError ? 'ExpressionBudgetExceeded' : 'ExpressionFailed', api: item.name },
    });
  }
}

function condition(field: string, op: string, raw: Scalar | Scalar[], resolved: Resolved): WhereClause | undefined {
  const value = Array.isArray(raw) ? raw.map((v) => resolve(v, resolved)) : resolve(raw, resolved);
  if (value === ABSENT || (Array.isArray(value) && value.includes(ABSENT))) return undefined;
  const v = value as never;
  switch (op) {
    case 'eq':
      return value === null ? { type: 'isNull', field, value: true } : { type: 'eq', field, value: v };
    case 'ne':
      return value === null ? { type: 'isNull', field, value: false } : { type: 'not', value: { type: 'eq', field, value: v } };
    case 'in':
      return { type: 'in', field, value: ([] as unknown[]).concat(value) as never };
    case 'nin':
      return { type: 'not', value: { type: 'in', field, value: ([] as unknown[]).concat(value) as never } };
    case 'null':
      return { type: 'isNull', field, value: value === true };
    default:
      return { type: op as 'gt', field, value: v };
  }
}

/**
 * The data-layer search an export runs (spec manifest `exports`, kind query): its `where` (a
 * property to a value, or to operators eq, ne, in, nin, gt, gte, lt, lte, contains, startsWith,
 * null), where a value `=…` is an expression over `input` (`=input.region`) and a condition whose
 * value is not given is dropped; `select`; `sort` (`-` for descending); `limit` objects. Both the
 * export's API (HTTP, MCP) and workflow `use` steps run it.
 */
export async function exportQuery(item: QueryExport, input: Input): Promise<SearchObjectsRequest> {
  const resolved = await resolveWhere(item, input);
  const conditions = Object.entries(item.where).flatMap(([field, rule]) => {
    const ops: [string, Scalar | Scalar[]][] =
      rule !== null && typeof rule === 'object' && !Array.isArray(rule)
        ? Object.entries(rule as Record<string, Scalar | Scalar[]>)
        : [['eq', rule as Scalar]];
    return ops.flatMap(([op, value]) => condition(field, op, value, resolved) ?? []);
  });
  return {
    ...(conditions.length === 0 ? {} : { where: conditions.length === 1 ? conditions[0] : { type: 'and', value: conditions } }),
    ...(item.select.length > 0 ? { select: item.select } : {}),
    ...(item.sort.length > 0
      ? {
          orderBy: {
            fields: item.sort.map((key) => ({
              field: key.replace(/^-/, ''),
              direction: key.startsWith('-') ? ('desc' as const) : ('asc' as const),
            })),
          },
        }
      : {}),
    pageSize: item.limit,
  };
}
