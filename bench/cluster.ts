// Keyed requests per second through two API processes against one, on the cluster harness's
// topology (test/cluster/harness.ts: one PostgreSQL, temporal-dev, s3rver, two `npm run api`,
// two `npm run worker`). `GET /api/v1/developer/me` with a developer key, loaded by autocannon
// at saturation: 20 connections to A alone, then 10 to each of A and B at once, alternating over
// several rounds (medians). Scaling needs a core per process: the load generator, PostgreSQL and
// both API processes share this machine's cores, so the cores are printed beside the ratio.
// Goal: two processes >= 1.7x one, judged with 4 cores or more (two API processes, PostgreSQL, the load).
// Usage: npx node bench/cluster.ts [seconds per run=4] [rounds=3]
import os from 'node:os';
import { startCluster } from '../test/cluster/harness.ts';
import { TEST_OPERATOR } from '../test/support/service.ts';
import { type LoadResult, load } from './support/processes.ts';
import { record, report } from './support/report.ts';
import { median } from './support/timing.ts';

const seconds = Number(process.argv[2] ?? 4);
const rounds = Number(process.argv[3] ?? 3);
const CONNECTIONS = 20;

const cores = os.availableParallelism();
console.log(`cores: ${cores} (the processes: 2 api, 2 worker, PostgreSQL, temporal-dev, s3rver and the load generator)`);
record({ name: 'cores', value: cores, unit: 'cores' });

const cluster = await startCluster();
console.log(`cluster ready in ${cluster.startupMs} ms`);
try {
  const [a, b] = cluster.api;
  const token = await a.call('POST', '/api/v1/developer/password-tokens', { body: TEST_OPERATOR });
  if (token.status !== 201) throw new Error(`cannot sign in: ${JSON.stringify(token.body)}`);
  const headers = { authorization: `Bearer ${(token.body as { data: { key: string } }).data.key}` };
  const target = (url: string, connections: number) => ({ url: `${url}/api/v1/developer/me`, headers, seconds, connections });
  const checked = (result: LoadResult) => {
    if (result.non2xx || result.errors) throw new Error(`failed requests during the bench: ${JSON.stringify(result)}`);
    return result;
  };
  const one = () => load(target(a.url, CONNECTIONS)).then(checked);
  const two = async () => {
    const results = await Promise.all([a, b].map((api) => load(target(api.url, CONNECTIONS / 2)).then(checked)));
    return results.reduce((sum, r) => sum + r.requestsPerSecond, 0);
  };
  // Warm-up: JIT, pool connections, both processes' key caches.
  await two();
  const single: number[] = [];
  const pair: number[] = [];
  for (let r = 0; r < rounds; r++) {
    single.push((await one()).requestsPerSecond);
    pair.push(await two());
  }
  report({ name: 'keyed GET /developer/me, one API process', value: median(single), unit: 'req/s' });
  report({
    name: 'keyed GET /developer/me, two API processes',
    value: median(pair),
    unit: 'req/s',
    baseline: median(single),
    // Judged where each API process, PostgreSQL and the load generator can have a core of its own.
    goal: cores >= 4 ? '>= 1.7x one process' : `(not judged on ${cores} cores) >= 1.7x one process with 4 cores or more`,
  });
} finally {
  await cluster.close();
}
