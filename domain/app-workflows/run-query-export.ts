import type { QueryExport } from '../../schemas/manifest/index.ts';
import type { SearchObjectsRequest, WhereClause } from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/database.ts';
import { DomainError } from '../errors.ts';
import { findObjectTypeRecord, findOntologyOfCompany } from '../ontology/repository.ts';
import { objectPage } from '../ontology/search-objects.ts';
import { resolveValue, type Scope } from './expression.ts';

// A `use` step over a `query` export: the export's where/select/sort/limit as a search of its
// semantic type in the company's ontology (domain/ontology/search-objects.ts), with the step's
// input as the export's `input` (a where value written `=…` is an expression over `input`).

type Scalar = string | number | boolean | null;
type Condition = QueryExport['where'][string];

function clause(field: string, condition: Condition, scope: Scope): WhereClause[] {
  const value = (v: unknown): Scalar => {
    const resolved = typeof v === 'string' ? resolveValue(v, scope) : v;
    return resolved === undefined ? null : (resolved as Scalar);
  };
  const leaf = (type: 'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains', v: unknown): WhereClause => {
    const resolved = value(v);
    return resolved === null ? { type: 'isNull', field, value: true } : { type, field, value: resolved };
  };
  const list = (v: unknown) => (Array.isArray(v) ? v : [v]).map(value).filter((x): x is string | number | boolean => x !== null);
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return [leaf('eq', condition)];
  const out: WhereClause[] = [];
  for (const [op, v] of Object.entries(condition)) {
    if (op === 'eq' || op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte' || op === 'contains') out.push(leaf(op, v));
    else if (op === 'ne') out.push({ type: 'not', value: leaf('eq', v) });
    else if (op === 'in') out.push({ type: 'in', field, value: list(v) });
    else if (op === 'nin') out.push({ type: 'not', value: { type: 'in', field, value: list(v) } });
    else if (op === 'startsWith') out.push({ type: 'startsWith', field, value: String(value(v) ?? '') });
    else if (op === 'null') out.push({ type: 'isNull', field, value: value(v) !== false });
  }
  return out;
}

/** The export as a search request, input substituted. */
export function queryRequest(query: QueryExport, input: Record<string, unknown>): SearchObjectsRequest {
  const scope = { input };
  const where = Object.entries(query.where).flatMap(([field, condition]) => clause(field, condition, scope));
  return {
    ...(where.length ? { where: where.length === 1 ? where[0]! : { type: 'and', value: where } } : {}),
    ...(query.select.length ? { select: query.select } : {}),
    ...(query.sort.length
      ? {
          orderBy: {
            fields: query.sort.map((key) =>
              key.startsWith('-') ? { field: key.slice(1), direction: 'desc' as const } : { field: key, direction: 'asc' as const },
            ),
          },
        }
      : {}),
    pageSize: query.limit,
  };
}

/** Runs the export in the company's ontology; rows are the objects' properties. */
export async function runQueryExport(db: DbOrTrx, companyId: string, query: QueryExport, input: Record<string, unknown>) {
  for (const [name, parameter] of Object.entries(query.input)) {
    if (parameter.required && (input[name] === undefined || input[name] === null))
      throw new DomainError('invalid_payload', `The export ${query.name} needs input ${name}.`, { details: { input: name } });
  }
  const ontology = await findOntologyOfCompany(db, companyId);
  const type = ontology && (await findObjectTypeRecord(db, ontology.id, query.type));
  if (!ontology || !type) throw new DomainError('object_type_not_found', `The company's ontology has no object type ${query.type}.`);
  const page = await objectPage(db, ontology, type, queryRequest(query, input));
  return page.data.map(({ __apiName, __rid, __rev, __primaryKey, ...properties }) => properties);
}
