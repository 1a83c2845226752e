import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregate } from '../../../domain/ontology/aggregate-objects.ts';
import {
  findObjectTypeRecord,
  findOntologyOfCompany,
  type ObjectTypeRecord,
  type OntologyRecord,
} from '../../../domain/ontology/repository.ts';
import { objectPage } from '../../../domain/ontology/search-objects.ts';
import { writeEdits } from '../../../domain/ontology/write-edits.ts';
import {
  AggregateObjectsRequest,
  type Aggregation,
  type GroupBy,
  SearchObjectsRequest,
  type WhereClause,
  type WhereLeaf,
} from '../../../schemas/ontology.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture } from '../../support/ontology.ts';

// Search and aggregate against an independent model: random objects and random where trees (and
///or/not up to 3 deep), the same keys in the same order and the same metrics as the model says.

let database: TestDatabase;
let acme: OntologyFixture;
let ontology: OntologyRecord;
let type: ObjectTypeRecord;

type Item = {
  id: number;
  s: string | null;
  n: number | null;
  d: number | null;
  b: boolean | null;
  day: string | null;
  tags: string[] | null;
};
const FIELDS = ['s', 'n', 'd', 'b', 'day', 'tags'] as const;

beforeAll(async () => {
  database = await createTestDatabase();
  acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
  await define(database.db, acme, {
    types: [
      {
        apiName: 'qa.Item',
        primaryKey: 'id',
        properties: {
          id: { dataType: { type: 'integer' } },
          s: { dataType: { type: 'string' } },
          n: { dataType: { type: 'integer' } },
          d: { dataType: { type: 'double' } },
          b: { dataType: { type: 'boolean' } },
          day: { dataType: { type: 'date' } },
          tags: { dataType: { type: 'array', subType: { type: 'string' } } },
        },
      },
    ],
  });
  ontology = (await findOntologyOfCompany(database.db, acme.companyId))!;
  type = (await findObjectTypeRecord(database.db, ontology.id, 'qa.Item'))!;
});
afterAll(() => database.drop());

// ---- generators
const STRINGS = ['', 'a', 'ab', 'abc', 'b', 'B', 'é', 'a b', 'ba', 'Z'];
const DAYS = ['2025-12-31', '2026-01-01', '2026-01-02', '2026-02-28'];
const TAGS = ['x', 'y', 'z'];
const VALUE = {
  s: fc.constantFrom(...STRINGS),
  n: fc.integer({ min: -5, max: 5 }),
  d: fc.integer({ min: -20, max: 20 }).map((x) => x / 4),
  b: fc.boolean(),
  day: fc.constantFrom(...DAYS),
  tags: fc.array(fc.constantFrom(...TAGS), { maxLength: 3 }),
};
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 4 });
const item = fc.record({
  s: nullable(VALUE.s),
  n: nullable(VALUE.n),
  d: nullable(VALUE.d),
  b: nullable(VALUE.b),
  day: nullable(VALUE.day),
  tags: nullable(VALUE.tags),
});
const items = fc.array(item, { maxLength: 40 }).map((list) => list.map((o, i): Item => ({ id: i + 1, ...o })));

const scalarField = fc.constantFrom('s', 'n', 'd', 'b', 'day') as fc.Arbitrary<'s' | 'n' | 'd' | 'b' | 'day'>;
const orderedField = fc.constantFrom('s', 'n', 'd', 'day') as fc.Arbitrary<'s' | 'n' | 'd' | 'day'>;
const valuesOf = (f: 's' | 'n' | 'd' | 'b' | 'day') => VALUE[f] as fc.Arbitrary<string | number | boolean>;

const leaf: fc.Arbitrary<WhereLeaf> = fc.oneof(
  scalarField.chain((field) => valuesOf(field).map((value): WhereLeaf => ({ type: 'eq', field, value }))),
  fc
    .tuple(fc.constantFrom('gt', 'gte', 'lt', 'lte') as fc.Arbitrary<'gt' | 'gte' | 'lt' | 'lte'>, orderedField)
    .chain(([op, field]) => valuesOf(field).map((value): WhereLeaf => ({ type: op, field, value }))),
  fc.tuple(fc.constantFrom(...FIELDS), fc.boolean()).map(([field, value]): WhereLeaf => ({ type: 'isNull', field, value })),
  fc.constantFrom(...TAGS).map((value): WhereLeaf => ({ type: 'contains', field: 'tags', value })),
  scalarField.chain((field) => fc.array(valuesOf(field), { maxLength: 3 }).map((value): WhereLeaf => ({ type: 'in', field, value }))),
  fc.constantFrom('', 'a', 'ab', 'b', 'é').map((value): WhereLeaf => ({ type: 'startsWith', field: 's', value })),
);
const whereAt = (depth: number): fc.Arbitrary<WhereClause> =>
  depth === 0
    ? leaf
    : fc.oneof(
        { weight: 2, arbitrary: leaf },
        { weight: 1, arbitrary: fc.array(whereAt(depth - 1), { maxLength: 3 }).map((value): WhereClause => ({ type: 'and', value })) },
        { weight: 1, arbitrary: fc.array(whereAt(depth - 1), { maxLength: 3 }).map((value): WhereClause => ({ type: 'or', value })) },
        { weight: 1, arbitrary: whereAt(depth - 1).map((value): WhereClause => ({ type: 'not', value })) },
      );
const where = whereAt(3);

// ---- the model
/** Code-point order, as text collated "C" sorts. */
const cmp = (a: string | number | boolean, b: string | number | boolean) => {
  if (typeof a === 'string' && typeof b === 'string') {
    const x = [...a].map((c) => c.codePointAt(0)!);
    const y = [...b].map((c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  }
  return a < b ? -1 : a > b ? 1 : 0;
};

function matches(o: Item, w: WhereClause): boolean {
  switch (w.type) {
    case 'and':
      return w.value.every((x) => matches(o, x));
    case 'or':
      return w.value.some((x) => matches(o, x));
    case 'not':
      return !matches(o, w.value);
    case 'isNull':
      return (o[w.field as keyof Item] === null) === w.value;
  }
  // An empty `in` matches every object (Foundry), null values included.
  if (w.type === 'in' && w.value.length === 0) return true;
  const v = o[w.field as keyof Item];
  if (v === null) return false;
  switch (w.type) {
    case 'eq':
      return cmp(v as string, w.value) === 0;
    case 'gt':
      return cmp(v as string, w.value) > 0;
    case 'gte':
      return cmp(v as string, w.value) >= 0;
    case 'lt':
      return cmp(v as string, w.value) < 0;
    case 'lte':
      return cmp(v as string, w.value) <= 0;
    case 'in':
      return w.value.some((x) => cmp(v as string, x) === 0);
    case 'startsWith':
      return (v as string).startsWith(w.value);
    case 'contains':
      return (v as string[]).includes(w.value as string);
  }
}

async function load(list: Item[]) {
  await database.db.transaction().execute(async (trx) => {
    const existing = await objectPage(trx, ontology, type, { pageSize: 1000, select: ['id'] });
    await writeEdits(trx, {
      companyId: acme.companyId,
      accountId: null,
      operationId: `load-${Math.random()}`,
      actionTypeRid: null,
      edits: [
        ...existing.data.map((o) => ({ type: 'delete' as const, objectType: 'qa.Item', primaryKey: o.__primaryKey })),
        ...list.map((o) => ({
          type: 'create' as const,
          objectType: 'qa.Item',
          properties: Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null)),
        })),
      ],
    });
  });
}

async function allPages(request: SearchObjectsRequest, pageSize: number): Promise<number[]> {
  const keys: number[] = [];
  let pageToken: string | undefined;
  do {
    const page = await objectPage(database.db, ontology, type, { ...request, pageSize, ...(pageToken ? { pageToken } : {}) });
    keys.push(...page.data.map((o) => o.__primaryKey as number));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return keys;
}

describe('search against the model', () => {
  it('finds exactly the objects the model matches, in the model’s order, over every page', async () => {
    await fc.assert(
      fc.asyncProperty(
        items,
        fc.array(
          fc.tuple(
            where,
            fc.option(fc.tuple(orderedField, fc.constantFrom('asc', 'desc') as fc.Arbitrary<'asc' | 'desc'>), { nil: undefined }),
          ),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        async (list, queries) => {
          await load(list);
          for (const [w, order] of queries) {
            const request = SearchObjectsRequest.parse({
              where: w,
              ...(order ? { orderBy: { fields: [{ field: order[0], direction: order[1] }] } } : {}),
            });
            const expected = list
              .filter((o) => matches(o, w))
              .sort((a, b) => {
                if (order) {
                  const x = a[order[0]];
                  const y = b[order[0]];
                  if (x === null || y === null) {
                    if (x !== y) return x === null ? 1 : -1;
                  } else {
                    const c = cmp(x, y);
                    if (c !== 0) return order[1] === 'asc' ? c : -c;
                  }
                }
                return a.id - b.id;
              })
              .map((o) => o.id);
            expect(await allPages(request, 7), JSON.stringify({ w, order })).toEqual(expected);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

// ---- aggregation
const aggregation = fc.constantFrom<Aggregation[]>(
  [{ type: 'count' }],
  [{ type: 'count' }, { type: 'min', field: 'n' }, { type: 'max', field: 'day' }, { type: 'sum', field: 'd' }],
  [
    { type: 'avg', field: 'n' },
    { type: 'exactDistinct', field: 's' },
    { type: 'max', field: 's' },
    { type: 'min', field: 'd' },
  ],
);
const groupBy: fc.Arbitrary<GroupBy[]> = fc.oneof(
  fc.constant<GroupBy[]>([]),
  fc.constantFrom('b', 's', 'day', 'n').map((field): GroupBy[] => [{ type: 'exact', field }]),
  fc
    .uniqueArray(
      fc.tuple(
        fc.option(fc.integer({ min: -6, max: 6 }), { nil: undefined }),
        fc.option(fc.integer({ min: -6, max: 6 }), { nil: undefined }),
      ),
      {
        minLength: 1,
        maxLength: 3,
        // The same range twice is refused (its two groups could not be told apart).
        selector: ([s, e]) => `${s}:${e}`,
      },
    )
    .map((ranges): GroupBy[] => [
      {
        type: 'ranges',
        field: 'n',
        ranges: ranges.map(([startValue, endValue]) => ({
          ...(startValue === undefined ? {} : { startValue }),
          ...(endValue === undefined ? {} : { endValue }),
        })),
      },
    ]),
  fc.constant<GroupBy[]>([
    { type: 'exact', field: 'b' },
    { type: 'exact', field: 'day' },
  ]),
);

function modelMetric(a: Aggregation, objects: Item[]): number | string | null {
  if (a.type === 'count') return objects.length;
  const values = objects.map((o) => o[a.field as keyof Item]).filter((v) => v !== null) as (string | number)[];
  switch (a.type) {
    case 'exactDistinct':
      return new Set(values).size;
    case 'min':
      return values.length === 0 ? null : values.reduce((m, v) => (cmp(v, m) < 0 ? v : m));
    case 'max':
      return values.length === 0 ? null : values.reduce((m, v) => (cmp(v, m) > 0 ? v : m));
    case 'sum':
      return values.length === 0 ? null : (values as number[]).reduce((s, v) => s + v, 0);
    case 'avg':
      return values.length === 0 ? null : (values as number[]).reduce((s, v) => s + v, 0) / values.length;
  }
}

function modelAggregate(list: Item[], w: WhereClause | undefined, aggs: Aggregation[], groups: GroupBy[]) {
  const matching = list.filter((o) => !w || matches(o, w));
  const exact = groups.filter((g) => g.type === 'exact');
  const excluded = exact.length === 0 ? 0 : matching.filter((o) => exact.some((g) => o[g.field as keyof Item] === null)).length;
  // Each object's group keys (ranges: every range it falls in).
  const buckets = new Map<string, { group: Record<string, unknown>; objects: Item[] }>();
  for (const o of matching) {
    let keys: Record<string, unknown>[] = [{}];
    for (const g of groups) {
      const v = o[g.field as keyof Item] as number | string | boolean | null;
      if (v === null) {
        keys = [];
        break;
      }
      const values =
        g.type === 'exact'
          ? [v]
          : g.ranges
              .filter(
                (r) =>
                  (r.startValue === undefined || (v as number) >= (r.startValue as number)) &&
                  (r.endValue === undefined || (v as number) < (r.endValue as number)),
              )
              .map((r) => ({
                ...(r.startValue === undefined ? {} : { startValue: r.startValue }),
                ...(r.endValue === undefined ? {} : { endValue: r.endValue }),
              }));
      keys = keys.flatMap((k) => values.map((x) => ({ ...k, [g.field]: x })));
    }
    for (const k of keys) {
      const id = JSON.stringify(k);
      if (!buckets.has(id)) buckets.set(id, { group: k, objects: [] });
      buckets.get(id)!.objects.push(o);
    }
  }
  if (groups.length === 0) buckets.set('{}', { group: {}, objects: matching });
  return { excluded, groups: [...buckets.values()].map((b) => ({ group: b.group, metrics: aggs.map((a) => modelMetric(a, b.objects)) })) };
}

describe('aggregate against the model', () => {
  it('computes the model’s groups and metrics', async () => {
    await fc.assert(
      fc.asyncProperty(
        items,
        fc.array(fc.tuple(fc.option(where, { nil: undefined }), aggregation, groupBy), { minLength: 1, maxLength: 4 }),
        async (list, queries) => {
          await load(list);
          for (const [w, aggs, groups] of queries) {
            const request = AggregateObjectsRequest.parse({ aggregation: aggs, groupBy: groups, ...(w ? { where: w } : {}) });
            const got = await aggregate(database.db, ontology, type, request);
            const model = modelAggregate(list, w, aggs, groups);
            const context = JSON.stringify({ w, aggs, groups });
            expect(got.excludedItems, context).toBe(model.excluded);
            const key = (g: Record<string, unknown>) => JSON.stringify(g);
            const gotGroups = new Map(got.data.map((d) => [key(d.group), d.metrics.map((m) => m.value)]));
            expect([...gotGroups.keys()].sort(), context).toEqual(model.groups.map((g) => key(g.group)).sort());
            for (const g of model.groups) {
              const values = gotGroups.get(key(g.group))!;
              g.metrics.forEach((expected, i) => {
                if (typeof expected === 'number' && !Number.isInteger(expected)) expect(values[i], context).toBeCloseTo(expected, 9);
                else expect(values[i], context).toEqual(expected);
              });
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('refuses more groups than maxGroupCount', async () => {
    await load([1, 2, 3].map((n) => ({ id: n, s: null, n, d: null, b: null, day: null, tags: null })));
    const request = AggregateObjectsRequest.parse({
      aggregation: [{ type: 'count' }],
      groupBy: [{ type: 'exact', field: 'n', maxGroupCount: 2 }],
    });
    await expect(aggregate(database.db, ontology, type, request)).rejects.toMatchObject({
      code: 'query_invalid',
      details: { errorName: 'AggregationGroupCountExceededLimit' },
    });
  });
});
