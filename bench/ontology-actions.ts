// Action apply throughput over HTTP: `POST …/actions/{action}/apply` (VALIDATE_AND_EXECUTE: the
// object locked, the criteria checked, the edit written with its edits history, change row and
// outbox intent) from 8 concurrent clients on distinct objects, and on one contended object.
// Baseline in the same run: the same UPDATE of the same objects sent straight to PostgreSQL over
// the service's pool by 8 concurrent callers (what the action changes, without the service).
// Usage: npx node bench/ontology-actions.ts [applies=2000]
import { sql } from 'kysely';
import { findOntology } from '../domain/ontology/index.ts';
import { report } from './support/report.ts';
import { startBenchService } from './support/service.ts';

const total = Number(process.argv[2] ?? 2000);
const CLIENTS = 8;
const ITEMS = 1000;
const { svc, developerKey: key, call, stop } = await startBenchService();

/** Runs `total` jobs from CLIENTS workers; answers jobs per second. */
async function throughput(job: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < total) await job(next++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

try {
  await call(
    'POST',
    '/api/v1/developer/semantic/cell-bench/types',
    {
      types: [
        {
          apiName: 'bench.Item',
          primaryKey: 'id',
          properties: { id: { dataType: { type: 'string' } }, n: { dataType: { type: 'integer' } } },
        },
      ],
    },
    key,
  );
  await call(
    'POST',
    '/api/v1/developer/semantic/cell-bench/actionTypes',
    {
      actionTypes: [
        {
          apiName: 'bench.setN',
          parameters: { item: { dataType: { type: 'objectReference', objectType: 'bench.Item' } }, n: { dataType: { type: 'integer' } } },
          submissionCriteria: [{ condition: { parameter: 'n', op: 'gte', value: 0 } }],
          edits: [{ type: 'modifyObject', object: 'item', properties: { n: { parameter: 'n' } } }],
        },
      ],
    },
    key,
  );
  const items = Array.from({ length: ITEMS }, (_, i) => ({ id: `i${i}`, n: 0 }));
  await call('POST', '/api/v1/ontologies/cell-bench/objects/bench.Item/import', items, key);

  const apply = async (item: string, n: number) => {
    const res = await fetch(`${svc.url}/api/v1/ontologies/cell-bench/actions/bench.setN/apply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ parameters: { item, n } }),
    });
    const body = (await res.json()) as { data?: { validation: { result: string } } };
    if (res.status !== 200 || body.data?.validation.result !== 'VALID') throw new Error(`apply: ${res.status} ${JSON.stringify(body)}`);
  };

  // Warm-up: connections, plans and caches on both paths.
  for (let i = 0; i < 50; i++) await apply(`i${i}`, 1);
  const table = sql.id((await findOntology(svc.deps.db, 'cell-bench'))!.schemaName, 'bench.Item');
  const update = (i: number) =>
    sql`UPDATE ${table} SET n = ${i}, __rev = __rev + 1 WHERE id = ${`i${i % ITEMS}`}`.execute(svc.deps.db).then(() => undefined);
  for (let i = 0; i < 50; i++) await update(i);

  const baseline = await throughput(update);
  const distinct = await throughput((i) => apply(`i${i % ITEMS}`, i));
  const contended = await throughput((i) => apply('i0', i));

  report({ name: `baseline: UPDATE straight to PostgreSQL, ${CLIENTS} callers`, value: baseline, unit: 'ops/s' });
  report({ name: `apply over HTTP, ${CLIENTS} clients, distinct objects`, value: distinct, unit: 'ops/s', baseline });
  report({ name: `apply over HTTP, ${CLIENTS} clients, one object (row lock)`, value: contended, unit: 'ops/s', baseline });
} finally {
  await stop();
}
