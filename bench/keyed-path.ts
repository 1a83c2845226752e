// The authenticated API path against bare Koa, in the same run: `GET /api/v1/developer/me`
// with a developer key and `GET /api/v1/developer/auth/me` with an app ticket (what an app page
// calls first; the service logging every request, as `npm start` does), and Koa
// answering a small JSON body, each in a process of its own, loaded by autocannon
// (20 connections) at saturation and by an evenly paced client at a fixed 1,000 requests/s (one
// request a millisecond, its latency counted from when it was due: pacedLoad). The two alternate over
// several rounds and the medians are reported, so a busy neighbour skews both alike.
// Goals: keyed throughput at least 0.7 of bare Koa, ticketed 0.5; keyed p99 under 5 ms at 1,000 requests/s.
// Usage: npx node bench/keyed-path.ts [seconds per run=4] [rounds=3]
import { type LoadResult, load, pacedLoad, startServerProcess } from './support/processes.ts';
import { report } from './support/report.ts';
import { median } from './support/timing.ts';

const seconds = Number(process.argv[2] ?? 4);
const rounds = Number(process.argv[3] ?? 3);
const FIXED_RATE = 1000;

const bare = await startServerProcess(['bare']);
const service = await startServerProcess(['service', 'api', JSON.stringify({ SVC_TRUSTED_PROXIES: '127.0.0.1' }), 'ticket']);
/** An app admits 1,500 requests a minute per visitor's address: the ticketed load comes from this many. */
const VISITOR_ADDRESSES = 10_000;
try {
  const targets = {
    bare: { url: `${bare.url}/`, headers: {} },
    keyed: { url: `${service.url}/api/v1/developer/me`, headers: { authorization: `Bearer ${service.developerKey}` } },
    ticketed: {
      url: `${service.url}/api/v1/developer/auth/me`,
      headers: { authorization: `Bearer ${service.ticket}` },
      sources: VISITOR_ADDRESSES,
    },
  };
  // Warm-up: JIT, pool connections, caches.
  for (const t of Object.values(targets)) await load({ ...t, seconds: 2 });
  type Target = keyof typeof targets;
  const runs: Record<'saturated' | 'fixed', Record<Target, LoadResult[]>> = {
    saturated: { bare: [], keyed: [], ticketed: [] },
    fixed: { bare: [], keyed: [], ticketed: [] },
  };
  for (let r = 0; r < rounds; r++) {
    for (const [mode, rate] of [
      ['saturated', undefined],
      ['fixed', FIXED_RATE],
    ] as const) {
      // The ticketed path at saturation only: its fixed-rate latency is not a goal.
      for (const name of mode === 'saturated' ? (['bare', 'keyed', 'ticketed'] as const) : (['bare', 'keyed'] as const)) {
        const result = rate ? await pacedLoad({ ...targets[name], seconds, rate }) : await load({ ...targets[name], seconds });
        if (result.non2xx || result.errors) throw new Error(`failed requests during the bench: ${JSON.stringify(result)}`);
        runs[mode][name].push(result);
      }
    }
  }
  const med = (rs: LoadResult[], k: keyof LoadResult) => median(rs.map((x) => x[k]));
  const { saturated, fixed } = runs;
  report({ name: 'bare Koa at saturation', value: med(saturated.bare, 'requestsPerSecond'), unit: 'req/s' });
  report({
    name: 'keyed GET /developer/me at saturation',
    value: med(saturated.keyed, 'requestsPerSecond'),
    unit: 'req/s',
    baseline: med(saturated.bare, 'requestsPerSecond'),
    goal: '>= 0.7x bare Koa',
  });
  report({
    name: 'ticket GET /developer/auth/me at saturation',
    value: med(saturated.ticketed, 'requestsPerSecond'),
    unit: 'req/s',
    baseline: med(saturated.bare, 'requestsPerSecond'),
    goal: '>= 0.5x bare Koa',
  });
  report({ name: 'keyed p50 at saturation', value: med(saturated.keyed, 'p50'), unit: 'ms', baseline: med(saturated.bare, 'p50') });
  report({ name: 'keyed p99 at saturation', value: med(saturated.keyed, 'p99'), unit: 'ms', baseline: med(saturated.bare, 'p99') });
  report({ name: `keyed p50 at ${FIXED_RATE} req/s`, value: med(fixed.keyed, 'p50'), unit: 'ms', baseline: med(fixed.bare, 'p50') });
  report({
    name: `keyed p99 at ${FIXED_RATE} req/s`,
    value: med(fixed.keyed, 'p99'),
    unit: 'ms',
    baseline: med(fixed.bare, 'p99'),
    goal: '< 5 ms',
  });
} finally {
  await Promise.all([bare.stop(), service.stop()]);
}
