// Ontology SQL over 10^6 objects, measured against a baseline taken in the same run: the same
// statements sent straight to PostgreSQL on the service's pool. The difference is what a query
// costs beyond its SQL: its own connection logged in as the SQL role, the read-only transaction,
// JSON of up to 10,000 rows, HTTP.
// Usage: npx node bench/ontology-sql.ts [rounds=5] [objects=1000000]
import { sql } from 'kysely';
import { findOntology } from '../domain/ontology/index.ts';
import { startBenchService } from './support/service.ts';
import { median, time } from './support/timing.ts';

const rounds = Number(process.argv[2] ?? 5);
const OBJECTS = Number(process.argv[3] ?? 1_000_000);
const { svc, developerKey: key, call, stop } = await startBenchService();

try {
  await call(
    'POST',
    '/api/v1/developer/semantic/cell-bench/types',
    {
      types: [
        {
          apiName: 'bench.Row',
          primaryKey: 'id',
          properties: {
            id: { dataType: { type: 'long' } },
            category: { dataType: { type: 'string' } },
            amount: { dataType: { type: 'double' } },
            at: { dataType: { type: 'timestamp' } },
          },
        },
      ],
    },
    key,
  );
  const ontology = (await findOntology(svc.deps.db, 'cell-bench'))!;
  const table = sql.id(ontology.schemaName, 'bench.Row');
  // Loaded in bulk (the bench measures reading; the writer has its own bench).
  await sql`INSERT INTO ${table} (id, category, amount, at)
            SELECT g, 'c' || (g % 100), (g % 1000) / 10.0, now() - g * interval '1 second' FROM generate_series(1, ${OBJECTS}) AS g`.execute(
    svc.deps.db,
  );
  await sql`ANALYZE ${table}`.execute(svc.deps.db);

  const QUERIES = {
    'SELECT * (row limit 10,000 of 10^6)': { api: 'SELECT * FROM "bench.Row"', direct: sql`SELECT * FROM ${table} LIMIT 10001` },
    'GROUP BY category over 10^6 (100 rows)': {
      api: 'SELECT category, count(*), avg(amount) FROM "bench.Row" GROUP BY category',
      direct: sql`SELECT category, count(*), avg(amount) FROM ${table} GROUP BY category`,
    },
    'WHERE id = $1 (primary key)': {
      api: 'SELECT * FROM "bench.Row" WHERE id = $1',
      direct: sql`SELECT * FROM ${table} WHERE id = ${4242}`,
    },
  } as const;

  const first = await time(() => call('POST', '/api/v1/sqlQueries/executeOntology', { query: 'SELECT 1' }, key));
  console.log(`ontology SQL bench, ${OBJECTS} objects, ${rounds} rounds, medians`);
  console.log(`${'first query of a set of types (makes its SQL role)'.padEnd(62)} ${first.toFixed(1).padStart(8)} ms`);
  for (const [name, q] of Object.entries(QUERIES)) {
    const direct: number[] = [];
    const api: number[] = [];
    let truncated = false;
    let rows = 0;
    for (let r = 0; r < rounds; r++) {
      direct.push(await time(() => q.direct.execute(svc.deps.db)));
      api.push(
        await time(async () => {
          const body = { query: q.api, ...(q.api.includes('$1') ? { parameters: [4242] } : {}) };
          const data = await call('POST', '/api/v1/sqlQueries/executeOntology', body, key);
          truncated = data.truncated;
          rows = data.rows.length;
        }),
      );
    }
    const base = median(direct);
    console.log(`${`baseline: ${name}, on the pool`.padEnd(62)} ${base.toFixed(1).padStart(8)} ms`);
    console.log(
      `${`executeOntology: ${name}`.padEnd(62)} ${median(api).toFixed(1).padStart(8)} ms  ${(median(api) / base).toFixed(2)}x baseline  (${rows} rows${truncated ? ', truncated' : ''})`,
    );
  }
} finally {
  await stop();
}
