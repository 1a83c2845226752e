// Hostile tenants (issue 28) against a served service, in a process of its own. One company's
// developer key sends what the audit sent: ontology SQL (a DO block that catches query_canceled,
// an advisory-lock loop, rows of 1 MB, a json_agg of 20,000 values, a query that runs into the
// statement timeout, two that would make PostgreSQL allocate gigabytes: one refused by the
// checker's size caps, one within them that meets the backend's memory ceiling) from 6 senders,
// more than the SQL budget, and, at the same time, an app API whose `where` evaluates five nested
// `map`s over a 35-item list (35^5 steps unbounded) from 4 senders; the senders run in a thread
// of their own at the lowest priority, standing for a client on another machine. Meanwhile another client asks `GET /api/v1/health/ready` every 25 ms (readiness: in
// the api role, `SELECT 1` on the service's own pool) and a second company's developer sends
// ontology SQL `SELECT 1` every 600 ms, until the last hostile answer. Baseline in the same run:
// the same probes with no hostile load. Memory: the served process runs with a V8 heap limit of HEAP_LIMIT_MB (past it, it
// aborts and the bench fails); its peak RSS (VmHWM, the Node process with its threads; the
// embedded PostgreSQL is a process of its own) and its main thread's sampled peak heap are
// compared with that budget. The RSS baseline is the peak through start-up, set-up and baseline.
// Goals: worst readiness latency under 100 ms; peak RSS and heap under the budget; no 5xx.
// Usage: npx node bench/hostile-tenants.ts [seconds=15]
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { Answers, HostileLoad } from './support/hostile-senders.ts';
import { startServerProcess } from './support/processes.ts';
import { report } from './support/report.ts';

const seconds = Number(process.argv[2] ?? 15);
/** The memory budget: the served process's V8 heap limit, and the RSS goal. */
const HEAP_LIMIT_MB = 1024;
// Behind a trusted proxy, as in production: each tenant's requests come from an address of its own
// (X-Forwarded-For), so per-IP rate limits do not lump the companies together as loopback would.
const server = await startServerProcess(
  ['service', 'api', JSON.stringify({ SVC_TRUSTED_PROXIES: '127.0.0.1' })],
  [`--max-old-space-size=${HEAP_LIMIT_MB}`],
);
const HOSTILE_IP = '198.51.100.1';
const OTHER_IP = '198.51.100.2';
const key = server.developerKey!;

const HOSTILE_SQL = [
  'DO $$BEGIN BEGIN PERFORM pg_sleep(21); EXCEPTION WHEN query_canceled THEN NULL; END; PERFORM pg_sleep(6); END$$',
  'DO $$BEGIN FOR i IN 1..100000000 LOOP PERFORM pg_advisory_xact_lock(i); END LOOP; END$$',
  `SELECT ${'x, '.repeat(24)}x FROM (SELECT rpad('', 10000, '😀') AS x FROM generate_series(1, 6000)) AS s`,
  "SELECT json_agg(rpad('', 1000, 'x') || g) FROM generate_series(1, 20000) AS g",
  'SELECT count(*) FROM (SELECT generate_series(1, 1000000)) AS a, (SELECT generate_series(1, 1000000)) AS b',
  // PostgreSQL memory: 2 GB asked of one backend, refused before it runs; then 10 GB within the caps.
  "SELECT string_agg(repeat('x',1000000),'') FROM generate_series(1,2000)",
  "SELECT length(string_agg(rpad('', 10000, 'x'), '')) FROM generate_series(1, 1000000)",
];
const list = 'input.tags';
const FIVE_DEEP = `=len(map(${list}, map(${list}, map(${list}, map(${list}, map(${list}, item))))))`;
const TAGS = Array.from({ length: 35 }, (_, i) => `t${i}`);

type Answer = { status: number; body: any };
async function call(method: string, path: string, body?: unknown, bearer?: string, from = OTHER_IP): Promise<Answer> {
  const res = await fetch(server.url + path, {
    method,
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': from,
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
async function must(method: string, path: string, body: unknown, bearer: string): Promise<any> {
  const res = await call(method, path, body, bearer);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Peak resident set of the server process so far (Linux: VmHWM). */
const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** `ask` every `everyMs` until `over()`: the worst latency and the answers by status and error code. */
async function probe(over: () => boolean, everyMs: number, ask: () => Promise<Answer>) {
  let worst = 0;
  const statuses: Record<string, number> = {};
  while (!over()) {
    const started = performance.now();
    const { status, body } = await ask();
    worst = Math.max(worst, performance.now() - started);
    const kind = `${status} ${body?.error?.code ?? 'ok'}`;
    statuses[kind] = (statuses[kind] ?? 0) + 1;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return { worst, statuses };
}

/** Readiness from one client and the other company's SQL from its own key, until `over()`. */
const probes = (over: () => boolean, otherKey: string) =>
  Promise.all([
    probe(over, 25, () => call('GET', '/api/v1/health/ready')),
    // Every 600 ms: 100 a minute, within ontology SQL's limit of 120 a minute per company and address.
    probe(over, 600, () => call('POST', '/api/v1/sqlQueries/executeOntology', { query: 'SELECT 1' }, otherKey)),
  ]);
const after = (ms: number) => {
  const until = performance.now() + ms;
  return () => performance.now() >= until;
};

/** 5xx answers other than `timeout` (503), which is how a statement past its timeout is meant to end. */
const fiveHundreds = (answers: Record<string, number>) =>
  Object.entries(answers).reduce((n, [kind, c]) => (kind >= '500' && !kind.endsWith(' timeout') ? n + c : n), 0);
const not2xx = (answers: Record<string, number>) => Object.entries(answers).reduce((n, [kind, c]) => (kind >= '300' ? n + c : n), 0);

try {
  const ops = server.operatorKey!;
  const rowType = {
    types: [
      {
        apiName: 'bench.Row',
        primaryKey: 'id',
        properties: { id: { dataType: { type: 'long' } }, region: { dataType: { type: 'string' } } },
      },
    ],
  };
  await must('POST', '/api/v1/developer/semantic/cell-bench/types', rowType, key);
  // The other company, with a developer of its own.
  await must('POST', '/api/v1/admin/organizations', { cellId: 'cell-other', name: 'Other' }, ops);
  const other = { username: 'otherdev', email: 'otherdev@bench.test', password: 'bench-password-2', emailVerified: true };
  await must('POST', '/api/v1/admin/users', { ...other, licenses: [{ cellId: 'cell-other', role: 'developer' }] }, ops);
  const otherKey = (await must('POST', '/api/v1/developer/password-tokens', { login: other.username, password: other.password }, ops)).key;
  await must('POST', '/api/v1/developer/semantic/cell-other/types', rowType, otherKey);
  // The app whose API evaluates the five nested maps (as test/api/app-workflows/app-workflows.test.ts).
  const app = '/api/v1/developer/apps/cell-bench/hostile';
  await must(
    'POST',
    `${app}/versions`,
    {
      manifest: {
        manifestVersion: 1,
        slug: 'hostile',
        version: '1.0.0',
        title: 'Hostile',
        exports: [
          {
            name: 'boom',
            title: 'Boom',
            kind: 'query',
            type: 'bench.Row',
            input: { tags: { type: 'text[]', required: true } },
            where: { region: FIVE_DEEP },
          },
        ],
      },
      files: [{ path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>hostile</title>' }],
    },
    key,
  );
  for (const channel of ['test', 'production']) await must('POST', `${app}/channels/${channel}`, { version: '1.0.0' }, key);
  await probes(after(1000), otherKey); // warm-up
  const [baseReady, baseSql] = await probes(after(seconds * 1000), otherKey);
  const rssBefore = peakRssMb();

  // One call first, to show how it ends (after the baseline, so that its memory counts in the hostile phase).
  const boom = await call('POST', `${app}/apis/boom/execute`, { input: { tags: TAGS } }, key, HOSTILE_IP);
  console.log(
    `one call of the five nested maps answers ${boom.status} ${boom.body?.error?.code ?? ''}: ${boom.body?.error?.message ?? ''}`,
  );

  // Senders start requests for `seconds`, from a low-priority thread of their own
  // (bench/support/hostile-senders.ts); the probes and the heap samples go on until the last
  // answer (a query that runs into the statement timeout takes 20 s).
  let finished = false;
  const hostileLoad: HostileLoad = {
    url: server.url,
    key,
    from: HOSTILE_IP,
    seconds,
    sql: HOSTILE_SQL,
    api: [`${app}/apis/boom/execute`, { input: { tags: TAGS } }],
  };
  const started = performance.now();
  const load = new Promise<[Answers, Answers]>((resolve, reject) => {
    const senders = new Worker(new URL('./support/hostile-senders.ts', import.meta.url), { workerData: hostileLoad });
    senders.once('message', (m: { sql: Answers; expressions: Answers }) => resolve([m.sql, m.expressions]));
    senders.once('error', reject);
  }).finally(() => {
    finished = true;
  });
  let heapPeak = 0;
  const sampling = (async () => {
    while (!finished) {
      heapPeak = Math.max(heapPeak, (await server.memory()).heapUsed / 2 ** 20);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const [[ready, otherSql], [sqlStatuses, exprStatuses]] = await Promise.all([probes(() => finished, otherKey), load, sampling]);
  const loadSeconds = (performance.now() - started) / 1000;

  console.log(
    `hostile tenants bench: baseline ${seconds} s, hostile requests started for ${seconds} s, answered within ${loadSeconds.toFixed(1)} s; served with --max-old-space-size=${HEAP_LIMIT_MB}`,
  );
  console.log(`hostile SQL answers by status and code: ${JSON.stringify(sqlStatuses)}; five nested maps: ${JSON.stringify(exprStatuses)}`);
  console.log(`readiness answers by status and code: ${JSON.stringify(ready!.statuses)} (baseline ${JSON.stringify(baseReady!.statuses)})`);
  console.log(
    `other company's SELECT 1 by status and code: ${JSON.stringify(otherSql!.statuses)} (baseline ${JSON.stringify(baseSql!.statuses)})`,
  );
  report({
    name: 'worst GET /api/v1/health/ready latency (another client) during hostile load',
    value: ready!.worst,
    unit: 'ms',
    baseline: baseReady!.worst,
    goal: '< 100 ms',
  });
  report({
    name: "worst other company's ontology SQL SELECT 1 during hostile load",
    value: otherSql!.worst,
    unit: 'ms',
    baseline: baseSql!.worst,
  });
  report({
    name: "other company's requests that were not 2xx during hostile load",
    value: not2xx(ready!.statuses) + not2xx(otherSql!.statuses),
    unit: 'answers',
    goal: '0',
  });
  report({
    name: 'service peak RSS during hostile load',
    value: peakRssMb(),
    unit: 'MB',
    baseline: rssBefore,
    goal: `< ${HEAP_LIMIT_MB} MB`,
  });
  report({
    name: 'service peak V8 heap used, main thread (sampled every 100 ms)',
    value: heapPeak,
    unit: 'MB',
    goal: `< ${HEAP_LIMIT_MB} MB (heap limit)`,
  });
  report({
    name: 'hostile answers that were 5xx (503 timeout excepted)',
    value: fiveHundreds(sqlStatuses) + fiveHundreds(exprStatuses),
    unit: 'answers',
    goal: '0',
  });
} finally {
  await server.stop();
}
