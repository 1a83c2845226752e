// The authenticated API path against bare Koa, in the same run: `GET /api/v1/developer/me`
// with a developer key, and Koa answering a small JSON body, each in a process of its own,
// loaded by autocannon (20 connections) at saturation and at a fixed 1,000 requests/s.
// Goals: keyed throughput at least 0.5 of bare Koa; p99 under 10 ms at 1,000 requests/s.
// Usage: npx node bench/keyed-path.ts [seconds=8]
import { load, startServerProcess } from './support/processes.ts';
import { report } from './support/report.ts';

const seconds = Number(process.argv[2] ?? 8);
const FIXED_RATE = 1000;

const bare = await startServerProcess(['bare']);
const service = await startServerProcess(['service', 'api']);
try {
  const targets = {
    bare: { url: `${bare.url}/`, headers: {} },
    keyed: { url: `${service.url}/api/v1/developer/me`, headers: { authorization: `Bearer ${service.developerKey}` } },
  };
  // Warm-up: JIT, pool connections, caches.
  for (const t of Object.values(targets)) await load({ ...t, seconds: 2 });
  const saturated = { bare: await load({ ...targets.bare, seconds }), keyed: await load({ ...targets.keyed, seconds }) };
  const fixed = {
    bare: await load({ ...targets.bare, seconds, rate: FIXED_RATE }),
    keyed: await load({ ...targets.keyed, seconds, rate: FIXED_RATE }),
  };
  for (const r of [...Object.values(saturated), ...Object.values(fixed)]) {
    if (r.non2xx || r.errors) throw new Error(`failed requests during the bench: ${JSON.stringify(r)}`);
  }
  report({ name: 'bare Koa at saturation', value: saturated.bare.requestsPerSecond, unit: 'req/s' });
  report({
    name: 'keyed GET /developer/me at saturation',
    value: saturated.keyed.requestsPerSecond,
    unit: 'req/s',
    baseline: saturated.bare.requestsPerSecond,
    goal: '>= 0.5x bare Koa',
  });
  report({ name: 'keyed p50 at saturation', value: saturated.keyed.p50, unit: 'ms', baseline: saturated.bare.p50 });
  report({ name: 'keyed p99 at saturation', value: saturated.keyed.p99, unit: 'ms', baseline: saturated.bare.p99 });
  report({ name: `keyed p50 at ${FIXED_RATE} req/s`, value: fixed.keyed.p50, unit: 'ms', baseline: fixed.bare.p50 });
  report({ name: `keyed p99 at ${FIXED_RATE} req/s`, value: fixed.keyed.p99, unit: 'ms', baseline: fixed.bare.p99, goal: '< 10 ms' });
} finally {
  await Promise.all([bare.stop(), service.stop()]);
}
