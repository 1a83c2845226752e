// Application module auto-refresh fan-out: N subscribers (1,000 by default) on one page whose
// interval is 10 s, one object changed every second. Each refresh is due when its first change
// commits, or one interval after the previous refresh when changes come faster (the coalescing
// rule); the figure is how late the last subscriber gets it beyond that (goal: p99 under 200 ms).
// Memory: the process's heap and RSS growth per open subscriber (clients in the same process:
// their parsing is counted too).
// Usage: npx node bench/workshop-auto-refresh.ts [subscribers=1000] [seconds=45]
import { openSse, type SseStream } from '../test/support/sse.ts';
import { benchItemWriter, defineBenchItem } from './support/bench-item.ts';
import { report } from './support/report.ts';
import { startBenchService } from './support/service.ts';
import { median } from './support/timing.ts';

const SUBSCRIBERS = Number(process.argv[2] ?? 1000);
const SECONDS = Number(process.argv[3] ?? 45);
const INTERVAL_MS = 10_000;
const bench = await startBenchService();
const { svc, developerKey: key, call, stop } = bench;
const db = svc.deps.db;
const quantile = (xs: readonly number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] as number;

const streams: SseStream[] = [];
try {
  await defineBenchItem(bench);
  const definition = {
    title: 'Bench',
    pages: [
      {
        id: 'items',
        title: 'Items',
        autoRefresh: { enabled: true, intervalSeconds: INTERVAL_MS / 1000 },
        widgets: [{ id: 'items', type: 'table', objectSet: { objectType: 'bench.Item' } }],
      },
    ],
  };
  const { rid } = await call('POST', '/api/v1/workshop/modules', { name: 'Bench', definition }, key);
  await call('POST', `/api/v1/workshop/modules/${rid}/versions/1/publish`, {}, key);
  const write = await benchItemWriter(db);
  await write(0);

  const before = process.memoryUsage();
  const url = `${svc.url}/api/v1/workshop/modules/${rid}/autoRefresh?page=items`;
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const s = await openSse(url, undefined, { authorization: `Bearer ${key}` });
    if (s.status !== 200) throw new Error(`subscribe: ${s.status} ${JSON.stringify(s.body)}`);
    await s.next(); // ready
    streams.push(s);
  }
  const after = process.memoryUsage();

  // Every subscriber's refreshes, with arrival times.
  const arrivals: { seq: number; at: number }[][] = streams.map(() => []);
  const readers = streams.map(async (s, i) => {
    for (;;) {
      const e = await s.next().catch(() => undefined);
      if (!e) return;
      if (e.event === 'refresh') arrivals[i]!.push({ seq: e.data.seq, at: performance.now() });
    }
  });
  const commits: { seq: number; at: number }[] = [];
  const started = performance.now();
  for (let n = 1; performance.now() - started < SECONDS * 1000; n++) {
    commits.push({ seq: await write(n), at: performance.now() });
    await new Promise((resolve) => setTimeout(resolve, 1000 - ((performance.now() - started) % 1000)));
  }
  await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS + 1000)); // the last coalesced refresh

  // Refresh k: the k-th refresh of every subscriber (all get the same sequence, in order).
  const rounds = Math.min(...arrivals.map((a) => a.length));
  const late: number[] = [];
  let previousFirst = Number.NEGATIVE_INFINITY;
  let covered = 0;
  for (let k = 0; k < rounds; k++) {
    const seq = arrivals[0]![k]!.seq;
    const times = arrivals.map((a) => a[k]!.at);
    const firstPending = commits.find((c) => c.seq > covered);
    if (!firstPending) break;
    const due = Math.max(firstPending.at, previousFirst + INTERVAL_MS);
    late.push(Math.max(...times) - due);
    previousFirst = Math.min(...times);
    covered = seq;
  }
  const label = `workshop auto-refresh, ${SUBSCRIBERS} subscribers, ${commits.length} changes one a second, interval ${INTERVAL_MS / 1000} s`;
  console.log(`${label}: ${rounds} refreshes per subscriber`);
  report({ name: `${label}: last subscriber beyond due, median`, value: median(late), unit: 'ms' });
  report({ name: `${label}: last subscriber beyond due, p99`, value: quantile(late, 0.99), unit: 'ms', goal: '< 200 ms' });
  report({ name: `${label}: heap per subscriber`, value: (after.heapUsed - before.heapUsed) / SUBSCRIBERS / 1024, unit: 'KiB' });
  report({ name: `${label}: RSS per subscriber`, value: (after.rss - before.rss) / SUBSCRIBERS / 1024, unit: 'KiB' });
  for (const s of streams) s.close();
  await Promise.all(readers);
} finally {
  for (const s of streams) s.close();
  await stop();
}
