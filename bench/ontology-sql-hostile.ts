// Hostile ontology SQL (issue 28) against a served service, in a process of its own: the worst
// latency of GET /api/v1/health, asked by another client every 25 ms, while one company's
// developer key sends what the audit sent (a DO block that catches query_canceled, an
// advisory-lock loop, rows of 1 MB, a json_agg of 20,000 values, more concurrent queries than the
// budget), and the service's peak RSS. Baseline in the same run: the same health requests with no
// hostile load. Goals: worst health latency under 100 ms; peak RSS under 1 GiB; no 5xx.
// (`/api/v1/health` is the liveness route; a readiness route is being added next to it.)
// Usage: npx node bench/ontology-sql-hostile.ts [seconds=15]
import { readFileSync } from 'node:fs';
import { startServerProcess } from './support/processes.ts';
import { report } from './support/report.ts';

const seconds = Number(process.argv[2] ?? 15);
const server = await startServerProcess(['service', 'api']);
const key = server.developerKey!;

const HOSTILE = [
  'DO $$BEGIN BEGIN PERFORM pg_sleep(21); EXCEPTION WHEN query_canceled THEN NULL; END; PERFORM pg_sleep(6); END$$',
  'DO $$BEGIN FOR i IN 1..100000000 LOOP PERFORM pg_advisory_xact_lock(i); END LOOP; END$$',
  "SELECT repeat('x',1000000) FROM generate_series(1,6000)",
  "SELECT json_agg(repeat('x', 1000) || g) FROM generate_series(1, 20000) AS g",
  'SELECT count(*) FROM (SELECT generate_series(1, 1000000000000)) AS s',
];

/** Peak resident set of the server process so far (Linux: VmHWM). */
const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** GET /api/v1/health every 25 ms until `until`; the worst latency. */
async function healthWorst(until: number): Promise<{ worst: number; count: number }> {
  let worst = 0;
  let count = 0;
  while (performance.now() < until) {
    const started = performance.now();
    const res = await fetch(`${server.url}/api/v1/health`);
    await res.arrayBuffer();
    worst = Math.max(worst, performance.now() - started);
    count += 1;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { worst, count };
}

try {
  const defined = await fetch(`${server.url}/api/v1/developer/semantic/cell-bench/types`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      types: [{ apiName: 'bench.Row', primaryKey: 'id', properties: { id: { dataType: { type: 'long' } } } }],
    }),
  });
  if (!defined.ok) throw new Error(`defining the bench type: ${defined.status} ${await defined.text()}`);

  await healthWorst(performance.now() + 1000); // warm-up
  const baseline = await healthWorst(performance.now() + seconds * 1000);
  const rssBefore = peakRssMb();

  const statuses = new Map<number, number>();
  const until = performance.now() + seconds * 1000;
  // Six senders, more than the SQL budget (4 at once, 2 per company by default): the rest queue or get 429.
  const senders = Array.from({ length: 6 }, async (_, i) => {
    for (let n = i; performance.now() < until; n++) {
      const res = await fetch(`${server.url}/api/v1/sqlQueries/executeOntology`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: HOSTILE[n % HOSTILE.length] }),
      });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  });
  const [hostile] = await Promise.all([healthWorst(until), ...senders]);
  const fiveHundreds = [...statuses].filter(([s]) => s >= 500 && s !== 503).reduce((n, [, c]) => n + c, 0);

  console.log(
    `ontology SQL hostile bench, ${seconds} s per phase; hostile answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
  report({
    name: 'worst GET /api/v1/health latency during hostile SQL',
    value: hostile!.worst,
    unit: 'ms',
    baseline: baseline.worst,
    goal: '< 100 ms',
  });
  report({ name: 'service peak RSS during hostile SQL', value: peakRssMb(), unit: 'MB', baseline: rssBefore, goal: '< 1024 MB' });
  report({ name: 'hostile SQL answers that were 5xx (503 timeout excepted)', value: fiveHundreds, unit: 'answers', goal: '0' });
} finally {
  await server.stop();
}
