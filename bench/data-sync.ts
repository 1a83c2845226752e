// Data sync throughput: a table of a company's PostgreSQL synced into an object type by a build
// (the real workflow and activity: pages of 5000 rows, each committed through the data layer's one
// writer with its edits history, change rows and cursor) against a plain `INSERT ... SELECT` of the
// same rows into a table of the same shape, in the same run. Goal (issue 31): >= 0.3x its rows/s
// (not met: 0.05x to 0.21x on 2 busy cores at stop 36, docs/contributing/performance-history.md).
// Usage: npx node bench/data-sync.ts [rows=1000000]
import { sql } from 'kysely';
import { findObjectTypeRecord, findOntologyOfCompany, objectTable } from '../domain/ontology/index.ts';
import { report } from './support/report.ts';
import { startBenchService } from './support/service.ts';
import { time } from './support/timing.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
// The source is a table of the service's own database (the same server): only the sync's path differs from the baseline's.
const {
  svc,
  developerKey: key,
  call,
  stop,
} = await startBenchService({ role: 'all', env: { SVC_CONNECTIVITY_PRIVATE_NETWORKS: 'allow' } });
const db = svc.deps.db;

try {
  const properties = {
    number: { dataType: { type: 'long' } },
    amount: { dataType: { type: 'double' } },
    note: { dataType: { type: 'string' } },
    at: { dataType: { type: 'timestamp' } },
  };
  await call(
    'POST',
    '/api/v1/developer/semantic/cell-bench/types',
    {
      types: [
        { apiName: 'bench.Order', primaryKey: 'number', properties },
        { apiName: 'bench.OrderCopy', primaryKey: 'number', properties },
      ],
    },
    key,
  );
  await sql`CREATE TABLE bench_orders (id bigint PRIMARY KEY, amount numeric, note text, placed_at timestamptz)`.execute(db);
  await sql`INSERT INTO bench_orders SELECT i, i * 1.5, 'order ' || i, now() - make_interval(secs => i)
    FROM generate_series(1, ${ROWS}::int) AS i`.execute(db);
  await sql`VACUUM ANALYZE bench_orders`.execute(db);

  const ontology = (await findOntologyOfCompany(
    db,
    (
      await db.selectFrom('companies').select('id').where('cell_id', '=', 'cell-bench').executeTakeFirstOrThrow()
    ).id,
  ))!;
  const copy = (await findObjectTypeRecord(db, ontology.id, 'bench.OrderCopy'))!;
  const baselineMs = await time(() =>
    sql`INSERT INTO ${objectTable(ontology, copy)} (number, amount, note, at) SELECT id, amount, note, placed_at FROM bench_orders`.execute(
      db,
    ),
  );

  // Through TCP: a connection string naming a socket folder (`?host=`, as the service's own may) is refused.
  const sourceUrl = new URL(svc.deps.ontologySql!.databaseUrl);
  sourceUrl.searchParams.delete('host');
  const connection = await call(
    'POST',
    '/api/v1/connectivity/cell-bench/connections',
    { kind: 'postgresql', name: 'bench', connectionString: sourceUrl.href },
    key,
  );
  const sync = await call(
    'POST',
    '/api/v1/connectivity/cell-bench/syncs',
    {
      name: 'bench-orders',
      connectionId: connection.id,
      objectType: 'bench.Order',
      source: { table: 'bench_orders' },
      mapping: { number: 'id', amount: 'amount', note: 'note', at: 'placed_at' },
      pageSize: 5000,
    },
    key,
  );
  const build = await call('POST', '/api/v1/orchestration/builds/cell-bench', { jobs: [{ syncId: sync.id }] }, key);
  let done = build;
  while (!['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(done.status)) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    done = await call('GET', `/api/v1/orchestration/builds/cell-bench/${build.id}`, undefined, key);
  }
  if (done.status !== 'SUCCEEDED' || done.jobs[0].rowsWritten !== ROWS) throw new Error(`build ${JSON.stringify(done)}`);
  const perSecond = (ms: number) => (ROWS * 1000) / ms;
  console.log(
    `synced ${ROWS} rows in ${(done.jobs[0].durationMs / 1000).toFixed(1)} s (INSERT ... SELECT: ${(baselineMs / 1000).toFixed(1)} s)`,
  );
  report({
    name: `PostgreSQL sync into an object type, ${ROWS} rows`,
    value: perSecond(done.jobs[0].durationMs),
    unit: 'rows/s',
    baseline: perSecond(baselineMs),
    goal: '>= 0.3x INSERT ... SELECT',
  });
} finally {
  await stop();
}
