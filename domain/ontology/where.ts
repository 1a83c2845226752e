import { type Expression, type SqlBool, sql } from 'kysely';
import type { DataType, OrderByField, WhereClause, WhereLeaf } from '../../schemas/ontology.ts';
import { DomainError } from '../errors.ts';
import { columnTypeOf } from './object-tables.ts';
import { valueProblem } from './property-values.ts';
import type { ObjectTypeRecord } from './repository.ts';

// The where-clause compiler: a parsed SearchJsonQueryV2 (the schema already bounds its depth and
// size, so this is linear in the request) becomes one SQL boolean expression over the object
// table aliased `o`, with identifiers through sql.ref and every value bound. A leaf is never
// NULL (coalesce), so `not` is the exact complement of its operand.

/** Property types compared by order (gt, gte, lt, lte, ranges, min, max). */
const ORDERED = new Set(['string', 'integer', 'long', 'double', 'date', 'timestamp']);
const EQUATABLE = new Set([...ORDERED, 'boolean']);
export const NUMERIC = new Set(['integer', 'long', 'double']);

export function queryInvalid(errorName: string, message: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError('query_invalid', message, { details: { errorName, ...details } });
}

/** The property a query names, or query_invalid PropertiesNotFound. */
export function propertyOf(type: ObjectTypeRecord, field: string): DataType {
  const p = type.properties[field];
  if (!p) throw queryInvalid('PropertiesNotFound', `${type.apiName} has no property ${field}.`, { properties: [field] });
  return p.dataType;
}

/** A value for a comparison with the property: checked like an object's value, bound with the column's type. */
export function boundValue(dataType: DataType, field: string, value: unknown): Expression<unknown> {
  const problem = valueProblem(dataType, value);
  if (problem) throw queryInvalid('InvalidPropertyValue', `${field}: ${problem}.`, { property: field });
  return sql`${value}::${sql.raw(columnTypeOf(dataType))}`;
}

const notFilterable = (field: string, op: string, dataType: DataType) =>
  queryInvalid('PropertiesNotFilterable', `${op} does not apply to ${field} (${dataType.type}).`, { properties: [field] });

const COMPARISONS = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function leaf(type: ObjectTypeRecord, w: WhereLeaf): Expression<SqlBool> {
  const dataType = propertyOf(type, w.field);
  const column = sql.ref(`o.${w.field}`);
  switch (w.type) {
    case 'isNull':
      return w.value ? sql<SqlBool>`(${column} IS NULL)` : sql<SqlBool>`(${column} IS NOT NULL)`;
    case 'eq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (!(w.type === 'eq' ? EQUATABLE : ORDERED).has(dataType.type)) throw notFilterable(w.field, w.type, dataType);
      return sql<SqlBool>`coalesce(${column} ${sql.raw(COMPARISONS[w.type])} ${boundValue(dataType, w.field, w.value)}, false)`;
    }
    case 'in': {
      if (!EQUATABLE.has(dataType.type)) throw notFilterable(w.field, 'in', dataType);
      if (w.value.length === 0) return sql<SqlBool>`true`;
      const values = w.value.map((v) => boundValue(dataType, w.field, v));
      return sql<SqlBool>`coalesce(${column} IN (${sql.join(values)}), false)`;
    }
    case 'startsWith':
      if (dataType.type !== 'string') throw notFilterable(w.field, 'startsWith', dataType);
      return sql<SqlBool>`coalesce(starts_with(${column}, ${w.value}), false)`;
    case 'contains': {
      if (dataType.type !== 'array' || dataType.subType.type === 'struct') throw notFilterable(w.field, 'contains', dataType);
      const problem = valueProblem(dataType.subType, w.value);
      if (problem) throw queryInvalid('InvalidPropertyValue', `${w.field}: ${problem}.`, { property: w.field });
      return sql<SqlBool>`coalesce(${column} @> ${JSON.stringify([w.value])}::jsonb, false)`;
    }
  }
}

export function compileWhere(type: ObjectTypeRecord, where: WhereClause | undefined): Expression<SqlBool> {
  if (!where) return sql<SqlBool>`true`;
  switch (where.type) {
    case 'and':
    case 'or': {
      if (where.value.length === 0) return sql<SqlBool>`${sql.raw(where.type === 'and' ? 'true' : 'false')}`;
      const parts = where.value.map((w) => compileWhere(type, w));
      return sql<SqlBool>`(${sql.join(parts, sql.raw(where.type === 'and' ? ' AND ' : ' OR '))})`;
    }
    case 'not':
      return sql<SqlBool>`(NOT ${compileWhere(type, where.value)})`;
    default:
      return leaf(type, where);
  }
}

/** ORDER BY terms: the fields asked for (each once, of an ordered type), then the primary key, so pages are stable. */
export function compileOrderBy(type: ObjectTypeRecord, fields: readonly OrderByField[] = []) {
  const seen = new Set<string>();
  const terms = fields.map((f) => {
    const dataType = propertyOf(type, f.field);
    if (!EQUATABLE.has(dataType.type))
      throw queryInvalid('PropertiesNotSortable', `${f.field} (${dataType.type}) cannot be ordered by.`, { properties: [f.field] });
    if (seen.has(f.field)) throw queryInvalid('DuplicateOrderBy', `${f.field} appears twice in orderBy.`, { properties: [f.field] });
    seen.add(f.field);
    return sql`${sql.ref(`o.${f.field}`)} ${sql.raw(f.direction === 'desc' ? 'DESC NULLS LAST' : 'ASC NULLS LAST')}`;
  });
  if (!seen.has(type.primaryKey)) terms.push(sql`${sql.ref(`o.${type.primaryKey}`)} ASC`);
  return sql.join(terms);
}

/** `properties.x:asc,properties.y:desc` (the GET list's orderBy) as fields. */
export function parseOrderByParam(text: string): OrderByField[] {
  return text.split(',').map((part) => {
    const m = /^properties\.([a-z][A-Za-z0-9_]*)(?::(asc|desc))?$/.exec(part.trim());
    if (!m)
      throw queryInvalid('InvalidOrderBy', `orderBy takes properties.<name>[:asc|:desc], comma-separated; got ${JSON.stringify(part)}.`);
    return { field: m[1]!, direction: (m[2] ?? 'asc') as 'asc' | 'desc' };
  });
}
