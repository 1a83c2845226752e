// Storage of objects, measured for the data-layer decision (docs/app-developers/data-layer.md): search and
// aggregate over 10^5 and 10^6 objects, (a) per-type tables with typed columns and B-tree indexes
// (what svc does, queried through its own where compiler and aggregator) against (b) one shared
// JSONB table with expression indexes on the same properties. Median of 5 runs per query.
// Usage: npx node bench/ontology-storage.ts [sizes=100000,1000000]
import { sql } from 'kysely';
import { aggregate, objectPage, objectTable } from '../domain/ontology/index.ts';
import { AggregateObjectsRequest, SearchObjectsRequest } from '../schemas/ontology.ts';
import { startOntologyBench } from './support/ontology-bench.ts';
import { medianOf } from './support/timing.ts';

const sizes = (process.argv[2] ?? '100000,1000000').split(',').map(Number);

/** The same data in both stores: 100 categories, amounts 0..9999.99, 4 years of days, a flag. */
const ROW = (n: string) =>
  sql.raw(`
  SELECT i, 'cat-' || lpad((i % 100)::text, 3, '0'), (i * 7919 % 1000000) / 100.0, (i % 50)::int,
         date '2023-01-01' + (i % 1461)::int, i % 3 = 0 FROM generate_series(1::bigint, ${n}) AS i`);

const SEARCHES = {
  'search eq (1%), first 100 by key': { where: { type: 'eq', field: 'category', value: 'cat-042' }, pageSize: 100 },
  'search range and flag, first 100': {
    where: {
      type: 'and',
      value: [
        { type: 'gte', field: 'amount', value: 5000 },
        { type: 'lt', field: 'amount', value: 5050 },
        { type: 'eq', field: 'flag', value: true },
      ],
    },
    pageSize: 100,
  },
} as const;
// Each JSONB search is the page and the count, as the service answers a search (totalCount).
const JSONB_FILTERS: Record<keyof typeof SEARCHES, string> = {
  'search eq (1%), first 100 by key': `type_id = 'item' AND doc->>'category' = 'cat-042'`,
  'search range and flag, first 100': `type_id = 'item' AND (doc->>'amount')::float8 >= 5000 AND (doc->>'amount')::float8 < 5050 AND (doc->>'flag')::boolean`,
};
const jsonbSearch = async (filter: string) => {
  await sql.raw(`SELECT doc FROM bench_jsonb WHERE ${filter} ORDER BY (doc->>'id')::bigint LIMIT 101`).execute(db);
  await sql.raw(`SELECT count(*) FROM bench_jsonb WHERE ${filter}`).execute(db);
};
const AGGREGATES = {
  'aggregate count/sum/avg by category': {
    aggregation: [{ type: 'count' }, { type: 'sum', field: 'amount' }, { type: 'avg', field: 'qty' }],
    groupBy: [{ type: 'exact', field: 'category' }],
  },
  'aggregate days >= 2026 by flag': {
    where: { type: 'gte', field: 'day', value: '2026-01-01' },
    aggregation: [{ type: 'count' }, { type: 'max', field: 'amount' }],
    groupBy: [{ type: 'exact', field: 'flag' }],
  },
} as const;
// Each JSONB aggregate is the groups and the count of objects left out (null group value), as the service answers (excludedItems).
const JSONB_AGGREGATES: Record<keyof typeof AGGREGATES, string[]> = {
  'aggregate count/sum/avg by category': [
    `SELECT doc->>'category', count(*), sum((doc->>'amount')::float8), avg((doc->>'qty')::int) FROM bench_jsonb WHERE type_id = 'item' AND doc->>'category' IS NOT NULL GROUP BY 1 ORDER BY 1`,
    `SELECT count(*) FROM bench_jsonb WHERE type_id = 'item' AND doc->>'category' IS NULL`,
  ],
  'aggregate days >= 2026 by flag': [
    `SELECT (doc->>'flag')::boolean, count(*), max((doc->>'amount')::float8) FROM bench_jsonb WHERE type_id = 'item' AND doc->>'day' >= '2026-01-01' AND doc->>'flag' IS NOT NULL GROUP BY 1 ORDER BY 1`,
    `SELECT count(*) FROM bench_jsonb WHERE type_id = 'item' AND doc->>'day' >= '2026-01-01' AND doc->>'flag' IS NULL`,
  ],
};

const { db, ontology, type, stop } = await startOntologyBench('ontology', {
  id: { dataType: { type: 'long' } },
  category: { dataType: { type: 'string' } },
  amount: { dataType: { type: 'double' } },
  qty: { dataType: { type: 'integer' } },
  day: { dataType: { type: 'date' } },
  flag: { dataType: { type: 'boolean' } },
});
try {
  const table = objectTable(ontology, type);
  await sql`CREATE TABLE bench_jsonb (type_id text NOT NULL, pk text NOT NULL, doc jsonb NOT NULL, PRIMARY KEY (type_id, pk))`.execute(db);

  const results: { size: number; query: string; typed: number; jsonb: number }[] = [];
  for (const size of sizes) {
    await sql`TRUNCATE ${table}`.execute(db);
    await sql`TRUNCATE bench_jsonb`.execute(db);
    // The typed table's indexes live in the company's schema.
    const own = (name: string) => sql.id(ontology.schemaName, name);
    await sql`DROP INDEX IF EXISTS ${own('bench_cat')}, ${own('bench_amount')}, ${own('bench_day')}, bench_j_cat, bench_j_amount, bench_j_day`.execute(
      db,
    );
    await sql`INSERT INTO ${table} (id, category, amount, qty, day, flag) ${ROW(String(size))}`.execute(db);
    await sql`INSERT INTO bench_jsonb (type_id, pk, doc)
      SELECT 'item', r.i::text, jsonb_build_object('id', r.i, 'category', r.c, 'amount', r.a, 'qty', r.q, 'day', r.d, 'flag', r.f)
      FROM (${ROW(String(size))}) AS r(i, c, a, q, d, f)`.execute(db);
    // The same indexes in both stores: B-tree on the typed columns, expression indexes on the JSONB.
    await sql`CREATE INDEX bench_cat ON ${table} (category, id)`.execute(db);
    await sql`CREATE INDEX bench_amount ON ${table} (amount)`.execute(db);
    await sql`CREATE INDEX bench_day ON ${table} (day)`.execute(db);
    await sql`CREATE INDEX bench_j_cat ON bench_jsonb (type_id, (doc->>'category'), ((doc->>'id')::bigint))`.execute(db);
    await sql`CREATE INDEX bench_j_amount ON bench_jsonb (type_id, ((doc->>'amount')::float8))`.execute(db);
    // A text-to-date cast is not immutable (it reads DateStyle), so the JSONB store indexes the ISO text.
    await sql`CREATE INDEX bench_j_day ON bench_jsonb (type_id, (doc->>'day'))`.execute(db);
    await sql`VACUUM ANALYZE`.execute(db);

    for (const [query, request] of Object.entries(SEARCHES) as [keyof typeof SEARCHES, (typeof SEARCHES)[keyof typeof SEARCHES]][]) {
      const parsed = SearchObjectsRequest.parse(request);
      const typed = await medianOf(() => objectPage(db, ontology, type, parsed), 5);
      const jsonb = await medianOf(() => jsonbSearch(JSONB_FILTERS[query]), 5);
      results.push({ size, query, typed, jsonb });
    }
    for (const [query, request] of Object.entries(AGGREGATES) as [
      keyof typeof AGGREGATES,
      (typeof AGGREGATES)[keyof typeof AGGREGATES],
    ][]) {
      const parsed = AggregateObjectsRequest.parse(request);
      const typed = await medianOf(() => aggregate(db, ontology, type, parsed), 5);
      const jsonb = await medianOf(async () => {
        for (const statement of JSONB_AGGREGATES[query]) await sql.raw(statement).execute(db);
      }, 5);
      results.push({ size, query, typed, jsonb });
    }
    const sizes = await sql<{ typed: string; jsonb: string }>`
      SELECT pg_size_pretty(pg_total_relation_size(${`${ontology.schemaName}."bench.Item"`}::regclass)) AS typed,
             pg_size_pretty(pg_total_relation_size('bench_jsonb')) AS jsonb`.execute(db);
    results.push({
      size,
      query: `(table + indexes: typed ${sizes.rows[0]!.typed}, JSONB ${sizes.rows[0]!.jsonb})`,
      typed: Number.NaN,
      jsonb: Number.NaN,
    });
  }

  console.log('objects    query                                    per-type table   JSONB table   JSONB / typed');
  for (const r of results) {
    if (Number.isNaN(r.typed)) {
      console.log(`${String(r.size).padEnd(10)} ${r.query}`);
      continue;
    }
    console.log(
      `${String(r.size).padEnd(10)} ${r.query.padEnd(40)} ${r.typed.toFixed(1).padStart(11)} ms ${r.jsonb.toFixed(1).padStart(10)} ms ${(r.jsonb / r.typed).toFixed(2).padStart(10)}x`,
    );
  }
  console.log('(per-type: the service’s own compile, statements and row conversion; both stores answer totalCount and excludedItems)');
} finally {
  await stop();
}
