// Metering overhead per metered call: the increment of one call (compute time and model cost of
// one app), written (a) alone, one statement per call, and (b) through the group-committing meter
// with many producers at once, the way model calls and workflow runs will meter. Baseline in the
// same run: one `SELECT 1` round trip per call. Prints time and statements per metered call.
// Usage: npx node bench/usage.ts [calls=2000] [concurrency=50]
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type KyselyPlugin, sql } from 'kysely';
import { connectDatabase, migrateToLatest } from '../domain/db/index.ts';
import { createUsageMeter, recordUsage, type UsageIncrement } from '../domain/usage/index.ts';
import { startEmbeddedPostgres } from '../infra/postgres/embedded-postgres.ts';
import { record } from './support/report.ts';
import { time } from './support/timing.ts';

const calls = Number(process.argv[2] ?? 2000);
const concurrency = Number(process.argv[3] ?? 50);
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-bench-usage-'));
await fs.chmod(dataDir, 0o755);
const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg') });
const pool = connectDatabase({ connectionString: pg.url });
let statements = 0;
const counting: KyselyPlugin = {
  transformQuery: (args) => {
    statements++;
    return args.node;
  },
  transformResult: async (args) => args.result,
};
const db = pool.withPlugin(counting);

/** Runs `calls` producer calls, at most `width` at a time; each awaits its own. */
async function producers(width: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < calls) await call(next++);
    }),
  );
}

try {
  await migrateToLatest(pool);
  await pool.insertInto('accounts').values({ id: 'acc_bench', username: 'bench', email: 'bench@example.com', status: 'active' }).execute();
  await pool
    .insertInto('apps')
    .values({ id: 'app_bench', namespace: 'public', slug: 'bench', company_id: null, created_by: 'acc_bench' })
    .execute();
  const increment = (): UsageIncrement[] => {
    const at = new Date();
    return [
      { appId: 'app_bench', meter: 'compute.model', amount: 850, at },
      { appId: 'app_bench', meter: 'model.cost', amount: 1200, at },
    ];
  };

  const rows: [string, number, number][] = [];
  const measure = async (name: string, width: number, call: (i: number) => Promise<unknown>) => {
    statements = 0;
    const ms = await time(() => producers(width, call));
    rows.push([name, ms / calls, statements / calls]);
  };
  await measure('baseline: SELECT 1, one caller', 1, () => sql`SELECT 1`.execute(db));
  await measure('recordUsage, one caller', 1, () => recordUsage(db, increment()));
  await measure(`baseline: SELECT 1, ${concurrency} callers`, concurrency, () => sql`SELECT 1`.execute(db));
  await measure(`recordUsage, ${concurrency} callers`, concurrency, () => recordUsage(db, increment()));
  const meter = createUsageMeter(db);
  await measure(`meter.record, ${concurrency} callers`, concurrency, () => meter.record(increment()));

  const total = await pool
    .selectFrom('usage_counters')
    .select(sql<number>`sum(amount)::bigint`.as('sum'))
    .where('meter', '=', 'model.cost')
    .executeTakeFirstOrThrow();
  if (Number(total.sum) !== 3 * calls * 1200) throw new Error(`lost increments: ${total.sum}`);

  console.log(`${calls} metered calls (compute time and model cost of one app each)`);
  for (const [name, msPerCall, perCall] of rows) {
    console.log(`${name.padEnd(34)} ${msPerCall.toFixed(3).padStart(8)} ms/call  ${perCall.toFixed(3).padStart(6)} statements/call`);
    record({ name, value: msPerCall, unit: 'ms/call' });
  }
} finally {
  await pool.destroy();
  await pg.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
