import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { z } from 'zod';
import {
  type AggregateObjectsRequest,
  type AggregateObjectsResponse,
  type Aggregation,
  type DataType,
  type GroupBy,
  MAX_GROUP_COUNT,
  type WhereClause,
} from '../../schemas/ontology.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { openOntology, readableType } from './data-access.ts';
import { readSource } from './object-security.ts';
import { apiValue, untyped } from './object-tables.ts';
import type { ObjectTypeRecord, OntologyRecord } from './repository.ts';
import { boundValue, compileWhere, NUMERIC, propertyOf, queryInvalid } from './where.ts';

// Aggregations (Foundry aggregateObjects): metrics over the objects a where clause selects,
// optionally grouped by exact values and by ranges, computed by PostgreSQL in one statement.

const ORDERED = new Set(['string', 'integer', 'long', 'double', 'date', 'timestamp']);
const DISTINCT = new Set([...ORDERED, 'boolean']);

/** The column as the API shows it: dates as text (never a local-midnight Date). */
const shown = (dataType: DataType, column: RawBuilder<unknown>) => (dataType.type === 'date' ? sql`${column}::text` : column);

function metric(type: ObjectTypeRecord, a: Aggregation): { name: string; expr: RawBuilder<unknown> } {
  if (a.type === 'count') return { name: a.name ?? 'count', expr: sql`count(*)` };
  const dataType = propertyOf(type, a.field);
  const column = sql`${sql.ref(`o.${a.field}`)}`;
  const name = a.name ?? `${a.type}_${a.field}`;
  const allowed = a.type === 'sum' || a.type === 'avg' ? NUMERIC : a.type === 'exactDistinct' ? DISTINCT : ORDERED;
  if (!allowed.has(dataType.type)) {
    throw queryInvalid('InvalidAggregationProperty', `${a.type} does not apply to ${a.field} (${dataType.type}).`, {
      properties: [a.field],
    });
  }
  switch (a.type) {
    case 'min':
    case 'max':
      return { name, expr: shown(dataType, sql`${sql.raw(a.type)}(${column})`) };
    case 'sum':
    case 'avg':
      // numeric results come back as strings: the API answers numbers.
      return { name, expr: sql`${sql.raw(a.type)}(${column})::float8` };
    case 'exactDistinct':
      return { name, expr: sql`count(DISTINCT ${column})` };
  }
}

interface CompiledGroup {
  key: string;
  field: string;
  select: RawBuilder<unknown>;
  /** A lateral join of the ranges (ranges only). */
  join?: RawBuilder<unknown>;
  /** Rows that belong to the group (ranges: inside the range). */
  where: Expression<SqlBool>;
  /** The API value of a group's key. */
  value(raw: unknown): unknown;
}

function group(type: ObjectTypeRecord, g: GroupBy, index: number): CompiledGroup {
  const dataType = propertyOf(type, g.field);
  const column = sql.ref(`o.${g.field}`);
  const key = `g${index}`;
  if (g.type === 'exact') {
    if (!DISTINCT.has(dataType.type))
      throw queryInvalid('InvalidAggregationProperty', `${g.field} (${dataType.type}) cannot be grouped by.`, { properties: [g.field] });
    return { key, field: g.field, select: shown(dataType, sql`${column}`), where: sql<SqlBool>`${column} IS NOT NULL`, value: apiValue };
  }
  if (!ORDERED.has(dataType.type) || dataType.type === 'string') {
    throw queryInvalid('InvalidAggregationProperty', `${g.field} (${dataType.type}) cannot be grouped by ranges.`, {
      properties: [g.field],
    });
  }
  // Range bounds of numeric properties are any finite number.
  const boundType: DataType = NUMERIC.has(dataType.type) ? { type: 'double' } : dataType;
  const bound = (v: string | number | undefined) =>
    v === undefined
      ? sql`NULL::${sql.raw(dataType.type === 'date' ? 'date' : dataType.type === 'timestamp' ? 'timestamptz' : 'float8')}`
      : boundValue(boundType, g.field, v);
  const alias = `r${index}`;
  const rows = g.ranges.map((r, i) => sql`(${i}, ${bound(r.startValue)}, ${bound(r.endValue)})`);
  return {
    key,
    field: g.field,
    select: sql`${sql.ref(`${alias}.i`)}`,
    join: sql`CROSS JOIN LATERAL (VALUES ${sql.join(rows)}) AS ${sql.id(alias)}(i, s, e)`,
    where: sql<SqlBool>`${column} IS NOT NULL AND (${sql.ref(`${alias}.s`)} IS NULL OR ${column} >= ${sql.ref(`${alias}.s`)}) AND (${sql.ref(`${alias}.e`)} IS NULL OR ${column} < ${sql.ref(`${alias}.e`)})`,
    value: (i) => {
      const r = g.ranges[Number(i)]!;
      return {
        ...(r.startValue === undefined ? {} : { startValue: r.startValue }),
        ...(r.endValue === undefined ? {} : { endValue: r.endValue }),
      };
    },
  };
}

export async function aggregate(
  db: DbOrTrx,
  ontology: OntologyRecord,
  type: ObjectTypeRecord,
  request: { aggregation: Aggregation[]; where?: WhereClause | undefined; groupBy: GroupBy[] },
  scope?: Expression<SqlBool>,
): Promise<AggregateObjectsResponse> {
  const metrics = request.aggregation.map((a) => metric(type, a));
  const names = new Set<string>();
  for (const m of metrics) {
    if (names.has(m.name)) throw queryInvalid('DuplicateAggregationName', `Two metrics are named ${m.name}.`);
    names.add(m.name);
  }
  const groups = request.groupBy.map((g, i) => group(type, g, i));
  const maxGroups = Math.min(
    MAX_GROUP_COUNT,
    ...request.groupBy.map((g) => (g.type === 'exact' ? (g.maxGroupCount ?? MAX_GROUP_COUNT) : MAX_GROUP_COUNT)),
  );
  const where = scope ? sql<SqlBool>`${scope} AND ${compileWhere(type, request.where)}` : compileWhere(type, request.where);
  // The caller's security policies apply before anything is counted.
  const table = readSource(ontology, type);
  const selects = [
    ...groups.map((g) => sql`${g.select} AS ${sql.id(g.key)}`),
    ...metrics.map((m, i) => sql`${m.expr} AS ${sql.id(`m${i}`)}`),
  ];
  const filters = [where, ...groups.map((g) => g.where)];
  const grouping =
    groups.length > 0
      ? sql`GROUP BY ${sql.join(groups.map((g) => sql.id(g.key)))} ORDER BY ${sql.join(groups.map((g) => sql.id(g.key)))}`
      : sql``;
  const result = await sql<Record<string, unknown>>`
    SELECT ${sql.join(selects)} FROM ${table} AS o ${sql.join(
      groups.flatMap((g) => (g.join ? [g.join] : [])),
      sql` `,
    )}
    WHERE ${sql.join(filters, sql` AND `)} ${grouping} LIMIT ${maxGroups + 1}`.execute(db);
  if (result.rows.length > maxGroups) {
    throw queryInvalid('AggregationGroupCountExceededLimit', `More than ${maxGroups} groups: narrow the where clause or the groupBy.`, {
      maxGroupCount: maxGroups,
    });
  }
  // Grouped by exact values: objects whose grouped property is null are in no group.
  const exact = request.groupBy.filter((g) => g.type === 'exact').map((g) => sql<SqlBool>`${sql.ref(`o.${g.field}`)} IS NULL`);
  const excluded =
    exact.length === 0
      ? 0
      : Number(
          (
            await untyped(db)
              .selectFrom(table.as('o'))
              .select(sql<number>`count(*)`.as('n'))
              .where(sql<SqlBool>`${where} AND (${sql.join(exact, sql` OR `)})`)
              .executeTakeFirstOrThrow()
          ).n,
        );
  return {
    excludedItems: excluded,
    accuracy: 'ACCURATE',
    data: result.rows.map((row) => ({
      group: Object.fromEntries(groups.map((g) => [g.field, g.value(row[g.key])])),
      metrics: metrics.map((m, i) => ({ name: m.name, value: metricValue(row[`m${i}`]) })),
    })),
  };
}

const metricValue = (v: unknown) => (v === null || v === undefined ? null : (apiValue(v) as number | string));

/** `POST .../objects/{type}/aggregate`. */
export async function aggregateObjects(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  input: { ontology: string; objectType: string; request: z.output<typeof AggregateObjectsRequest> },
): Promise<AggregateObjectsResponse> {
  const open = await openOntology(deps, principal, input.ontology);
  return aggregate(deps.db, open.ontology, readableType(open, input.objectType), input.request);
}
