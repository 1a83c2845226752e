import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { findOntology } from '../../../../domain/ontology/repository.ts';
import { SQL_MAX_RESULT_BYTES } from '../../../../schemas/ontology-sql.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../../support/identity.ts';
import { rssGrowthDuring } from '../../../support/memory.ts';
import { SALES } from '../../../support/ontology.ts';
import { startTestService, type TestService } from '../../../support/service.ts';

// Ontology SQL's budgets over real HTTP (issue 28): the process-wide and per-company concurrency
// budget, the byte budget, and the cancellation of a query whose client went away. A long
// statement timeout, so that only the budget under test can stop a query; queries are held
// running by a lock the test takes on Acme's table (they wait for it, as long as it is held).

let svc: TestService;
let acmeKey: string;
let globexKey: string;
let acmeOrders: string;
const SQL = '/api/v1/sqlQueries/executeOntology';

beforeAll(async () => {
  svc = await startTestService({
    env: { SVC_SQL_STATEMENT_TIMEOUT_MS: '120000', SVC_SQL_MAX_CONNECTIONS: '3', SVC_SQL_COMPANY_CONNECTIONS: '2' },
  });
  await seedCompanies(svc);
  acmeKey = await passwordKey(svc, 'dana');
  globexKey = await passwordKey(svc, 'gus');
  for (const [cell, key] of [
    ['cell-acme', acmeKey],
    ['cell-globex', globexKey],
  ] as const) {
    const defined = await svc.call('POST', `/api/v1/developer/semantic/${cell}/types`, { body: SALES, headers: bearer(key) });
    expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  }
  acmeOrders = `"${(await findOntology(svc.database.db, 'cell-acme'))!.schemaName}"."sales.Order"`;
  // The key's SQL role is made (GRANT waits for the table's lock too) before any test locks the table.
  expect((await query(acmeKey, 'SELECT 1')).status).toBe(200);
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const query = (key: string, text: string, signal?: AbortSignal) =>
  fetch(`${svc.url}${SQL}`, {
    method: 'POST',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    body: JSON.stringify({ query: text }),
    ...(signal ? { signal } : {}),
  });
const gate = () => svc.deps.ontologySql!.gate;

/** Acme's orders locked (ACCESS EXCLUSIVE) on a connection of the test's own until release(). */
async function lockAcmeOrders(): Promise<{ release(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: svc.database.url });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`LOCK TABLE ${acmeOrders} IN ACCESS EXCLUSIVE MODE`);
  return {
    release: async () => {
      await holder.query('ROLLBACK');
      await holder.end();
    },
  };
}

/** Backends of SQL roles waiting for a lock in this database. */
const waitingBackends = async () =>
  (
    await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND usename LIKE 'svc_sql_%' AND wait_event_type = 'Lock'`.execute(svc.database.db)
  ).rows;

describe('ontology SQL budgets over HTTP (issue 28)', () => {
  it('finding 5 (90 concurrent pg_sleep, scaled down): a company past its share waits, then gets 429 with an accurate message; others keep working', async () => {
    const lock = await lockAcmeOrders();
    try {
      const held = [1, 2, 3, 4].map(() => query(acmeKey, 'SELECT count(*) FROM "sales.Order"'));
      await vi.waitFor(async () => expect(gate().load).toEqual({ running: 2, waiting: 2 }), { timeout: 20_000 });
      await vi.waitFor(async () => expect(await waitingBackends()).toHaveLength(2), { timeout: 20_000 });

      const fifth = await query(acmeKey, 'SELECT 1');
      const body = (await fifth.json()) as { error: { code: string; message: string } };
      expect([fifth.status, fifth.headers.get('retry-after'), body.error.code, body.error.message]).toEqual([
        429,
        '1',
        'rate_limited',
        'This company already has 2 ontology SQL queries running and 2 waiting on this service (at most 2 run at once per company); retry when one finishes.',
      ]);
      // Another company still gets the slot left, and the service's own reads are untouched.
      const other = await query(globexKey, 'SELECT count(*) FROM "sales.Order"');
      expect(other.status).toBe(200);
      const me = await svc.call('GET', '/api/v1/developer/me', { headers: bearer(globexKey) });
      expect(me.status).toBe(200);
      const health = await svc.call('GET', '/api/v1/health');
      expect(health.status).toBe(200);

      await lock.release();
      const answers = await Promise.all(held);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      expect(gate().load).toEqual({ running: 0, waiting: 0 });
    } finally {
      await lock.release().catch(() => {});
    }
  });

  it('a client that goes away mid-query has its backend cancelled (no longer in pg_stat_activity) and its slot freed', async () => {
    const lock = await lockAcmeOrders();
    try {
      const gone = new AbortController();
      const request = query(acmeKey, 'SELECT count(*) FROM "sales.Order"', gone.signal).catch((e: unknown) => e);
      await vi.waitFor(async () => expect(await waitingBackends()).toHaveLength(1), { timeout: 20_000 });
      gone.abort();
      expect(await request).toBeInstanceOf(Error);
      // The lock is still held: only the cancellation can end the backend's wait.
      await vi.waitFor(async () => expect(await waitingBackends()).toEqual([]), { timeout: 20_000 });
      await vi.waitFor(() => expect(gate().load).toEqual({ running: 0, waiting: 0 }), { timeout: 20_000 });
    } finally {
      await lock.release();
    }
  });

  it("finding 3: SELECT repeat('x',1000000) FROM generate_series(1,6000), twice at once, answers 422 ResultTooLarge and the process stays bounded", async () => {
    const growth = await rssGrowthDuring(async () => {
      const answers = await Promise.all([1, 2].map(() => query(acmeKey, "SELECT repeat('x',1000000) FROM generate_series(1,6000)")));
      for (const answer of answers) {
        const body = (await answer.json()) as { error: { code: string; details: Record<string, unknown> } };
        expect([answer.status, body.error.code, body.error.details]).toEqual([
          422,
          'sql_query_failed',
          { errorName: 'ResultTooLarge', maxBytes: SQL_MAX_RESULT_BYTES },
        ]);
      }
    });
    // Read whole, each would be 6 GB; before the fix two of them took the process past 4 GB.
    expect(growth).toBeLessThan(400 * 1024 * 1024);
  });

  it('finding 3: json_agg of 20,000 values in one row answers 422 ResultTooLarge', async () => {
    const answer = await query(acmeKey, "SELECT json_agg(repeat('x', 1000) || g) FROM generate_series(1, 20000) AS g");
    const body = (await answer.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect([answer.status, body.error.code, body.error.details.errorName]).toEqual([422, 'sql_query_failed', 'ResultTooLarge']);
  });
});
