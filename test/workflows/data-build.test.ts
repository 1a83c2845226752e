import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  cancelBuild,
  createBuild,
  createConnection,
  createSync,
  deleteSync,
  getBuild,
  listBuilds,
} from '../../domain/connectivity/index.ts';
import { findObjectTypeRecord, findOntologyOfCompany, objectTable } from '../../domain/ontology/index.ts';
import type { CreateSyncInput } from '../../schemas/connectivity.ts';
import { cancelDataBuild, reconcileDataSyncSchedule, startDataBuild } from '../../worker/data-pipelines.ts';
import { dataSyncScheduleId } from '../../workflows/contract.ts';
import { createSourceDatabase, lockSourceTable, type SourceDatabase, testConnectivity } from '../support/connectivity.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../support/ontology.ts';
import { startWorkflowTestEnv, type WorkflowTestEnv } from '../support/workflow-env.ts';

// Builds through the real SDK (embedded server, time skipping) against a real second PostgreSQL
// database as the source: rows become sales.Order objects through the one writer, page by page,
// each page committed with its cursor. A worker stopped in the middle of a sync loses and repeats
// nothing; a failed job fails its dependants and leaves its committed pages.

let started: WorkflowTestEnv;
let source: SourceDatabase;
let acme: OntologyFixture;
let connectionId: string;
const connectivity = testConnectivity();

beforeAll(async () => {
  started = await startWorkflowTestEnv(undefined, { connectivity });
  source = await createSourceDatabase();
  const db = started.database.db;
  acme = await insertCompanyWithDeveloper(db, 'cell-acme');
  await define(db, acme, SALES);
  await source.client.query(
    `CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric NOT NULL, note text, placed_at timestamptz NOT NULL)`,
  );
  connectionId = (
    await createConnection(db, connectivity, acme.developer, 'cell-acme', {
      kind: 'postgresql',
      name: 'shop',
      connectionString: source.url,
    })
  ).id;
}, 120_000);
afterAll(async () => {
  await started?.stop();
  await source?.drop();
});

/** Rows `from`..`to` of a source table, placed at one second apart from a base instant (plus `shift` seconds). */
const insertOrders = (table: string, from: number, to: number, shift = 0) =>
  source.client.query(
    `INSERT INTO ${table} (id, amount, note, placed_at)
     SELECT i, i * 1.5, 'order ' || i, timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => i + $3)
     FROM generate_series($1::int, $2::int) AS i`,
    [from, to, shift],
  );

const sync = (input: Partial<CreateSyncInput> & { name: string }) =>
  createSync(started.database.db, acme.developer, 'cell-acme', {
    connectionId,
    objectType: 'sales.Order',
    source: { table: 'orders', schema: 'public' },
    mapping: { number: 'id', amount: 'amount', note: 'note', at: 'placed_at' },
    mode: 'full',
    pageSize: 100,
    schedule: null,
    ...input,
  });

/** Creates a build as the API does and starts its run as the outbox relay does; answers the build's final record. */
async function build(
  jobs: { syncId: string; dependsOn?: string[] }[],
  whileRunning?: (workflowId: string, buildId: string) => Promise<void>,
) {
  const db = started.database.db;
  const created = await createBuild(db, acme.developer, 'cell-acme', { jobs: jobs.map((j) => ({ dependsOn: [], ...j })) });
  await startDataBuild(started.env.client, db, created.id, {});
  await whileRunning?.(created.workflowId, created.id);
  await started.env.client.workflow.getHandle(created.workflowId).result();
  return getBuild(db, acme.developer, 'cell-acme', created.id);
}

async function orders() {
  const db = started.database.db;
  const ontology = (await findOntologyOfCompany(db, acme.companyId))!;
  const type = (await findObjectTypeRecord(db, ontology.id, 'sales.Order'))!;
  const rows = await sql<{
    number: number;
    amount: number;
    at: string;
  }>`SELECT number, amount, at FROM ${objectTable(ontology, type)} ORDER BY number`.execute(db);
  const created = await sql<{
    n: number;
    keys: number;
  }>`SELECT count(*)::int AS n, count(DISTINCT primary_key)::int AS keys FROM ontology_edits
    WHERE object_type_id = ${type.id} AND edit->>'type' = 'create'`.execute(db);
  return { rows: rows.rows, creates: created.rows[0]! };
}

describe('data builds', () => {
  it('syncs a table incrementally: every row once, then only new and changed rows', async () => {
    await insertOrders('orders', 1, 1000);
    const s = await sync({ name: 'orders-incremental', mode: 'incremental', cursorColumn: 'placed_at' });
    const first = await build([{ syncId: s.id }]);
    expect(first).toMatchObject({ status: 'SUCCEEDED', workflowId: `data-build:${first.id}` });
    // Ten full pages and the empty one that shows the end.
    expect(first.jobs[0]).toMatchObject({ status: 'SUCCEEDED', rowsRead: 1000, rowsWritten: 1000, pages: 11, error: null });
    expect(first.durationMs).toBeGreaterThanOrEqual(0);
    let seen = await orders();
    expect(seen.rows).toHaveLength(1000);
    expect(seen.rows[41]).toMatchObject({ number: 42, amount: 63 });
    expect(seen.creates).toEqual({ n: 1000, keys: 1000 });

    await insertOrders('orders', 1001, 1050);
    // A changed row moves past the cursor: it is read again and modifies its object.
    await source.client.query(`UPDATE orders SET amount = 7, placed_at = placed_at + interval '1 day' WHERE id = 5`);
    const second = await build([{ syncId: s.id }]);
    expect(second.jobs[0]).toMatchObject({ status: 'SUCCEEDED', rowsRead: 51, rowsWritten: 51 });
    seen = await orders();
    expect(seen.rows).toHaveLength(1050);
    expect(seen.rows[4]).toMatchObject({ number: 5, amount: 7 });
    expect(seen.creates).toEqual({ n: 1050, keys: 1050 });
  });

  it('fails a job at the page a value is refused, keeps its committed pages, fails its dependants, runs the rest', async () => {
    await source.client.query('CREATE TABLE bad_orders (id bigint PRIMARY KEY, amount text, note text, placed_at timestamptz)');
    await insertOrders('bad_orders', 5001, 5250);
    await source.client.query(`UPDATE bad_orders SET amount = 'lots' WHERE id = 5180`);
    const bad = await sync({ name: 'bad-orders', source: { table: 'bad_orders', schema: 'public' } });
    const after = await sync({ name: 'after-bad', mapping: { number: 'id', note: 'note' } });
    const other = await sync({
      name: 'independent',
      source: { table: 'orders', schema: 'public' },
      mapping: { number: 'id' },
      pageSize: 500,
    });
    const result = await build([{ syncId: bad.id }, { syncId: after.id, dependsOn: [bad.id] }, { syncId: other.id }]);
    expect(result.status).toBe('FAILED');
    expect(result.jobs.map((j) => [j.syncName, j.status])).toEqual([
      ['bad-orders', 'FAILED'],
      ['after-bad', 'FAILED'],
      ['independent', 'SUCCEEDED'],
    ]);
    expect(result.jobs[0]).toMatchObject({ rowsRead: 100, pages: 1, error: { code: 'invalid_payload' } });
    expect(result.jobs[0]!.error!.message).toMatch(/amount/);
    expect(result.jobs[1]).toMatchObject({ rowsRead: 0, error: { code: 'dependency_failed' } });
    expect(result.jobs[2]).toMatchObject({ rowsRead: 1050 });
    const numbers = (await orders()).rows.map((r) => Number(r.number)).filter((n) => n > 5000);
    expect(numbers).toEqual(Array.from({ length: 100 }, (_, i) => 5001 + i));
  });

  it('resumes after its worker stops mid-sync from the last committed page: nothing lost, nothing read or created twice', async () => {
    await source.client.query('CREATE TABLE big_orders (id bigint PRIMARY KEY, amount numeric, note text, placed_at timestamptz)');
    await insertOrders('big_orders', 10_001, 11_500);
    const s = await sync({ name: 'big', source: { table: 'big_orders', schema: 'public' }, pageSize: 50 });
    const db = started.database.db;
    const result = await build([{ syncId: s.id }], async (_workflowId, buildId) => {
      const pages = async () =>
        (await db.selectFrom('data_build_jobs').select('pages').where('build_id', '=', buildId).executeTakeFirstOrThrow()).pages;
      await vi.waitFor(async () => expect(await pages()).toBeGreaterThanOrEqual(3), { timeout: 60_000, interval: 20 });
      // The source holds the next page's read (an exclusive lock) while the worker goes away.
      const lock = await lockSourceTable(source, 'big_orders');
      const atStop = await pages();
      expect(atStop).toBeLessThan(30);
      await started.replaceWorker();
      await lock.release();
    });
    expect(result.jobs[0]).toMatchObject({ status: 'SUCCEEDED', rowsRead: 1500, rowsWritten: 1500, pages: 31 });
    const big = (await orders()).rows.filter((r) => Number(r.number) > 10_000);
    expect(big).toHaveLength(1500);
    const edits = await sql<{
      n: number;
      keys: number;
    }>`SELECT count(*)::int AS n, count(DISTINCT primary_key)::int AS keys FROM ontology_edits
      WHERE primary_key::bigint > 10000`.execute(db);
    expect(edits.rows[0]).toEqual({ n: 1500, keys: 1500 });
  });

  it('cancels a running build: the job in flight stops, the build and its jobs are CANCELLED', async () => {
    const s = await sync({ name: 'to-cancel', source: { table: 'big_orders', schema: 'public' }, pageSize: 50 });
    const db = started.database.db;
    // The first page's read waits on the lock: the job is in flight when the cancel comes.
    const lock = await lockSourceTable(source, 'big_orders');
    const created = await createBuild(db, acme.developer, 'cell-acme', { jobs: [{ syncId: s.id, dependsOn: [] }] });
    await startDataBuild(started.env.client, db, created.id, {});
    await vi.waitFor(async () => expect((await getBuild(db, acme.developer, 'cell-acme', created.id)).jobs[0]!.status).toBe('RUNNING'), {
      timeout: 60_000,
      interval: 20,
    });
    const cancelled = await db.transaction().execute((trx) => cancelBuild(trx, acme.developer, 'cell-acme', created.id));
    expect(cancelled.status).toBe('CANCELLED');
    await cancelDataBuild(started.env.client, db, created.id);
    await expect(started.env.client.workflow.getHandle(created.workflowId).result()).rejects.toThrow(/cancel/i);
    await lock.release();
    const after = await getBuild(db, acme.developer, 'cell-acme', created.id);
    expect(after).toMatchObject({ status: 'CANCELLED', jobs: [{ status: 'CANCELLED', rowsRead: 0 }] });
  });

  it('runs a scheduled sync from its Temporal Schedule, each run recorded as a build; the schedule goes with the sync', async () => {
    await source.client.query('CREATE TABLE nightly (id bigint PRIMARY KEY, amount numeric, note text, placed_at timestamptz)');
    await insertOrders('nightly', 20_001, 20_010);
    const db = started.database.db;
    const s = await sync({ name: 'nightly', source: { table: 'nightly', schema: 'public' }, schedule: '0 3 * * *' });
    const outbox = await db.selectFrom('outbox').select(['topic', 'key']).where('topic', '=', 'data-sync.changed').execute();
    expect(outbox).toContainEqual({ topic: 'data-sync.changed', key: s.id });
    expect(await reconcileDataSyncSchedule(started.env.client, db, s.id)).toBe('created');
    expect(await reconcileDataSyncSchedule(started.env.client, db, s.id)).toBe('updated');
    const handle = started.env.client.schedule.getHandle(dataSyncScheduleId(s.id));
    const described = await handle.describe();
    expect(described.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 3, end: 3, step: 1 }] });
    expect(described.memo).toMatchObject({ kind: 'data-sync-schedule', company: 'cell-acme' });
    await handle.trigger();
    const scheduled = async () => (await listBuilds(db, acme.developer, 'cell-acme', 20)).data.find((b) => b.trigger === 'schedule');
    await vi.waitFor(async () => expect((await scheduled())?.status).toBe('SUCCEEDED'), { timeout: 60_000, interval: 50 });
    const build = (await scheduled())!;
    expect(build.workflowId).toMatch(new RegExp(`^data-build:schedule:${s.id}`));
    expect(build.jobs).toMatchObject([{ syncName: 'nightly', rowsRead: 10, status: 'SUCCEEDED' }]);
    await db.transaction().execute((trx) => deleteSync(trx, acme.developer, 'cell-acme', s.id));
    expect(await reconcileDataSyncSchedule(started.env.client, db, s.id)).toBe('deleted');
    expect(await reconcileDataSyncSchedule(started.env.client, db, s.id)).toBe('absent');
  });
});
