// App log: ingestion through HTTP (one event per request, and batches of 50) against a baseline
// of the same rows INSERTed straight into the table in the same run; then the summary at 10^6
// events of one app (180 days, 5000 visitors) against a baseline count(*) over the same window.
// The bulk load writes the roll-ups the writer keeps (app_log_daily, app_log_visitors) too.
// The summary's goal: under 100 ms at 10^6 events.
// Usage: npx node bench/app-log.ts [rows=1000000] [rounds=5]
import { sql } from 'kysely';
import { record } from './support/report.ts';
import { startBenchService } from './support/service.ts';
import { median, time } from './support/timing.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const rounds = Number(process.argv[3] ?? 5);
const { svc, developerKey: key, call, stop } = await startBenchService();
const db = svc.deps.db;
const LOG = '/api/v1/developer/log/cell-bench';
// The visitor budget is 120 events a minute: the bench starts each timed chunk with a fresh one.
const freshBudget = () => db.deleteFrom('rate_limit_hits').execute();

try {
  await call(
    'POST',
    '/api/v1/developer/apps/cell-bench/logged/versions',
    {
      manifest: { manifestVersion: 1, slug: 'logged', version: '1.0.0', title: 'Logged' },
      files: [{ path: 'index.html', encoding: 'utf8', content: '<!doctype html><title>logged</title>' }],
    },
    key,
  );
  const { id: appId } = await db.selectFrom('apps').select('id').where('slug', '=', 'logged').executeTakeFirstOrThrow();
  const event = (i: number) => ({ kind: 'usage', name: `click-${i % 7}`, data: { button: 'save', n: i } });

  const N = 100;
  const single: number[] = [];
  const batched: number[] = [];
  const baseSingle: number[] = [];
  const baseBatched: number[] = [];
  for (let r = 0; r < rounds; r++) {
    await freshBudget();
    single.push(
      (await time(async () => {
        for (let i = 0; i < N; i++) await call('POST', `${LOG}/events`, { slug: 'logged', events: [event(i)] }, key);
      })) / N,
    );
    await freshBudget();
    batched.push(
      (await time(async () => {
        for (let b = 0; b < 2; b++)
          await call('POST', `${LOG}/events`, { slug: 'logged', events: Array.from({ length: 50 }, (_, i) => event(i)) }, key);
      })) / N,
    );
    const row = (i: number) => ({
      id: `log_base${r}x${i}`,
      app_id: appId,
      at: new Date(),
      kind: 'usage' as const,
      source: 'app' as const,
      name: 'base',
      account_id: null,
      version_id: null,
      channel: null,
      data: '{}',
      status: null,
    });
    baseSingle.push(
      (await time(async () => {
        for (let i = 0; i < N; i++) await db.insertInto('app_log_events').values(row(i)).execute();
      })) / N,
    );
    baseBatched.push(
      (await time(async () => {
        for (let b = 0; b < 2; b++)
          await db
            .insertInto('app_log_events')
            .values(Array.from({ length: 50 }, (_, i) => row(1000 + b * 50 + i)))
            .execute();
      })) / N,
    );
  }
  const perSecond = (msPerEvent: number) => (1000 / msPerEvent).toFixed(0).padStart(8);
  console.log(`app log ingestion, ${rounds} rounds of ${N} events, medians`);
  for (const [name, ms, base] of [
    ['HTTP, one event per request', median(single), median(baseSingle)],
    ['HTTP, 50 events per request', median(batched), median(baseBatched)],
  ] as const) {
    console.log(
      `${name.padEnd(34)} ${perSecond(ms)} events/s   baseline INSERT ${perSecond(base)} events/s   ${(ms / base).toFixed(1)}x baseline time`,
    );
    record({ name, value: ms, unit: 'ms/event', baseline: base });
  }

  // 10^6 events of one app over 180 days: 80% usage, 10% actions, 5% errors, 5% feedback.
  const started = performance.now();
  // In chunks (each under the statement timeout), each with the roll-ups the writer keeps.
  const CHUNK = 50_000;
  for (let from = 1; from <= ROWS; from += CHUNK) {
    const to = Math.min(ROWS, from + CHUNK - 1);
    await sql`
      WITH ins AS (
        INSERT INTO app_log_events (id, app_id, at, kind, source, name, account_id, data, status)
        SELECT 'log_b' || g, ${appId}, now() - (g % (180 * 24 * 60)) * interval '1 minute',
               k.kind, CASE WHEN k.kind = 'action' THEN 'service' ELSE 'app' END,
               k.kind || '-' || (g % 13), 'acc_v' || (g % 5000), '{}'::jsonb,
               CASE WHEN k.kind = 'feedback' THEN (ARRAY['open', 'planned', 'done'])[1 + g % 3] END
        FROM generate_series(${from}::int, ${to}::int) g
        CROSS JOIN LATERAL (SELECT CASE WHEN g % 20 < 16 THEN 'usage' WHEN g % 20 < 18 THEN 'action'
                                        WHEN g % 20 = 18 THEN 'error' ELSE 'feedback' END AS kind) k
        RETURNING app_id, at, kind, name, account_id
      ), daily AS (
        INSERT INTO app_log_daily (app_id, day, kind, name, count)
        SELECT app_id, (at AT TIME ZONE 'UTC')::date, kind, name, count(*) FROM ins GROUP BY 1, 2, 3, 4
        ON CONFLICT (app_id, day, kind, name) DO UPDATE SET count = app_log_daily.count + excluded.count
      )
      INSERT INTO app_log_visitors (app_id, account_id, last_day)
      SELECT app_id, account_id, max((at AT TIME ZONE 'UTC')::date) FROM ins WHERE kind IN ('usage', 'feedback', 'error') GROUP BY 1, 2
      ON CONFLICT (app_id, account_id) DO UPDATE SET last_day = greatest(app_log_visitors.last_day, excluded.last_day)`.execute(db);
  }
  for (const table of ['app_log_events', 'app_log_daily', 'app_log_visitors']) await sql`VACUUM ANALYZE ${sql.table(table)}`.execute(db);
  console.log(`\nloaded ${ROWS} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  for (const days of [7, 30, 180]) {
    const summary: number[] = [];
    const baseline: number[] = [];
    for (let r = 0; r < rounds; r++) {
      summary.push(await time(() => call('GET', `${LOG}/summary?slug=logged&days=${days}`, undefined, key)));
      baseline.push(
        await time(() =>
          sql`SELECT count(*) FROM app_log_events WHERE app_id = ${appId} AND at >= now() - ${days} * interval '1 day'`.execute(db),
        ),
      );
    }
    const s = median(summary);
    const b = median(baseline);
    console.log(
      `summary, days=${String(days).padEnd(3)} over ${ROWS} events: ${s.toFixed(1).padStart(7)} ms   baseline count(*) ${b.toFixed(1).padStart(7)} ms   ${(s / b).toFixed(1)}x`,
    );
    record({ name: `log summary, ${days} days over ${ROWS} events`, value: s, unit: 'ms', baseline: b });
  }
  const list: number[] = [];
  for (let r = 0; r < rounds; r++)
    list.push(await time(() => call('GET', `${LOG}/events?slug=logged&kind=error&limit=50`, undefined, key)));
  console.log(`events page (kind=error, 50) over ${ROWS} events: ${median(list).toFixed(1)} ms`);
  record({ name: `log events page over ${ROWS} events`, value: median(list), unit: 'ms' });
} finally {
  await stop();
}
