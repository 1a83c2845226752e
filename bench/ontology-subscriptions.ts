// Object-set subscription fan-out: the time from a change's commit to its arrival on the last of
// 200 listening streams (100 on the whole type, 100 on ten different filters of it), against the
// same change reaching one stream, measured in the same run.
// The streams are read by clients in the same process as the service (their parsing is counted).
// Usage: npx node bench/ontology-subscriptions.ts [rounds=30]
import { openSse, type SseStream } from '../test/support/sse.ts';
import { benchItemWriter, defineBenchItem } from './support/bench-item.ts';
import { startBenchService } from './support/service.ts';
import { median } from './support/timing.ts';

const rounds = Number(process.argv[2] ?? 30);
const LISTENERS = 200;
const bench = await startBenchService();
const { svc, developerKey: key, stop } = bench;
const db = svc.deps.db;
const STREAM = `${svc.url}/api/v1/ontologySubscriptions/ontologies/cell-bench/streamSubscriptions`;
const p95 = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] as number;
const ms = (x: number) => `${x.toFixed(1)} ms`;

const streams: SseStream[] = [];
try {
  await defineBenchItem(bench);
  const write = await benchItemWriter(db);
  await write(0);

  const open = async (filter: number | null) => {
    const base = { type: 'base', objectType: 'bench.Item' };
    const objectSet = filter === null ? base : { type: 'filter', objectSet: base, where: { type: 'gte', field: 'n', value: filter } };
    const s = await openSse(STREAM, { requests: [{ objectSet }] }, { authorization: `Bearer ${key}` });
    if (s.status !== 200) throw new Error(`subscribe: ${s.status} ${JSON.stringify(s.body)}`);
    await s.next(); // subscribeResponses
    streams.push(s);
    return s;
  };

  /** Commit-to-arrival of one change on every stream given: [to the first, to the last] in ms. */
  const measure = async (targets: readonly SseStream[], value: number) => {
    const arrivals = targets.map((s) => s.next().then(() => performance.now()));
    await write(value);
    const committed = performance.now();
    const times = (await Promise.all(arrivals)).map((t) => t - committed);
    return { first: Math.min(...times), last: Math.max(...times) };
  };

  // Baseline: one stream.
  const one = await open(null);
  const single: number[] = [];
  for (let r = 0; r < rounds; r++) single.push((await measure([one], 100 + r)).last);
  one.close();
  streams.pop();

  // 200 streams: half on the whole type, half on ten filters (all hold the object: n stays >= 10).
  for (let i = 0; i < LISTENERS; i++) await open(i % 2 === 0 ? null : i % 20);
  const first: number[] = [];
  const last: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const m = await measure(streams, 1000 + r);
    first.push(m.first);
    last.push(m.last);
  }
  console.log(`ontology subscriptions, ${rounds} changes each (median / p95 from commit):`);
  console.log(`  1 stream                                 ${ms(median(single))} / ${ms(p95(single))}`);
  console.log(`  ${LISTENERS} streams, first delivery            ${ms(median(first))} / ${ms(p95(first))}`);
  console.log(`  ${LISTENERS} streams, last delivery             ${ms(median(last))} / ${ms(p95(last))}`);
} finally {
  for (const s of streams) s.close();
  await stop();
}
