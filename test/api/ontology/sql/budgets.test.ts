import { getPriority } from 'node:os';
import fc from 'fast-check';
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
// budget, the byte budget, the cancellation of a query whose client went away, and PostgreSQL's
// memory (the checker's size caps, then the embedded server's ceiling per backend). Queries are
// held running by a lock the test takes on Acme's table (they wait for it, as long as it is held).

let svc: TestService;
let acmeKey: string;
let globexKey: string;
let acmeOrders: string;
const SQL = '/api/v1/sqlQueries/executeOntology';

/**
 * A service with the SQL budgets given (each describe its own), two companies with SALES defined and
 * their keys. `backendNice`: the test services' default is 0 (normal priority), as at nice 19 a
 * query that must do seconds of work to reach a limit could wait behind the rest of a busy test run
 * for longer than its statement timeout.
 */
function serveCompanies(statementTimeoutMs: number, backendNice = 0) {
  beforeAll(async () => {
    svc = await startTestService({
      env: {
        SVC_SQL_STATEMENT_TIMEOUT_MS: String(statementTimeoutMs),
        SVC_SQL_MAX_CONNECTIONS: '3',
        SVC_SQL_COMPANY_CONNECTIONS: '2',
        SVC_SQL_BACKEND_NICE: String(backendNice),
      },
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
}

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
  // A long statement timeout, so that only the budget under test can stop a query; the service's
  // default priority for SQL backends (these tests hold queries by locks, not by CPU).
  serveCompanies(120_000, 19);

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

  it("a query's backend runs at nice 19; the service's own backends keep nice 0", async () => {
    const lock = await lockAcmeOrders();
    try {
      const request = query(acmeKey, 'SELECT count(*) FROM "sales.Order"');
      await vi.waitFor(async () => expect(await waitingBackends()).toHaveLength(1), { timeout: 20_000 });
      const { pid } = (await waitingBackends())[0]!;
      const { rows: own } = await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND usename = current_user AND backend_type = 'client backend'`.execute(svc.database.db);
      expect(own.length).toBeGreaterThan(0);
      expect([getPriority(pid), ...new Set(own.map((b) => getPriority(b.pid)))]).toEqual([19, 0]);
      await lock.release();
      expect((await request).status).toBe(200);
    } finally {
      await lock.release().catch(() => {});
    }
  });
});

describe('result size and PostgreSQL memory of ontology SQL over HTTP (issue 28)', () => {
  // A short statement timeout bounds every random query of the property below: some nestings are
  // cheap in memory but cost minutes of CPU (10^6 rows of a 1,000-row subquery), and a 120 s
  // timeout let twelve of them outlast the test. These queries must reach the byte budget or
  // PostgreSQL's memory ceiling within that timeout, so their backends keep normal priority.
  serveCompanies(5_000);

  // repeat is refused before it runs since the PostgreSQL memory fix; rows of 1 MB are still made
  // from 25 columns of 10,000 four-byte characters (the rpad cap).
  it("finding 3: 6,000 rows of 1 MB (25 columns of rpad('', 10000, '😀'); was repeat('x',1000000)), twice at once, answer 422 ResultTooLarge and the process stays bounded", async () => {
    const rows = `SELECT ${'x, '.repeat(24)}x FROM (SELECT rpad('', 10000, '😀') AS x FROM generate_series(1, 6000)) AS s`;
    const growth = await rssGrowthDuring(async () => {
      const answers = await Promise.all([1, 2].map(() => query(acmeKey, rows)));
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
    const answer = await query(acmeKey, "SELECT json_agg(rpad('', 1000, 'x') || g) FROM generate_series(1, 20000) AS g");
    const body = (await answer.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect([answer.status, body.error.code, body.error.details.errorName]).toEqual([422, 'sql_query_failed', 'ResultTooLarge']);
  });

  type Failure = { error: { code: string; message: string; details: Record<string, unknown> } };
  /** Another company's SELECT 1 and the service's health still answer. */
  async function othersStillServed() {
    const other = await query(globexKey, 'SELECT 1 AS one');
    expect([other.status, ((await other.json()) as { data: { rows: unknown } }).data.rows]).toEqual([200, [[1]]]);
    expect((await svc.call('GET', '/api/v1/health/ready')).status).toBe(200);
  }

  it("SELECT string_agg(repeat('x',1000000),'') FROM generate_series(1,2000) answers 400 naming repeat before anything runs; another company's SELECT 1 still answers", async () => {
    const answer = await query(acmeKey, "SELECT string_agg(repeat('x',1000000),'') FROM generate_series(1,2000)");
    const body = (await answer.json()) as Failure;
    expect([answer.status, body.error.code, body.error.details.errorName]).toEqual([400, 'query_invalid', 'FunctionNotAllowed']);
    expect(body.error.message).toMatch(/^repeat makes a value as large as its count says: use rpad\(/);
    await othersStillServed();
  });

  it("SELECT string_agg(rpad('', 10000, 'x'), '') FROM generate_series(1, 1000000) (10 GB, within the checker's caps), twice at once, answers 422 QueryOutOfMemory from the backend's memory ceiling; the database and another company's SELECT 1 still answer", async () => {
    const text = "SELECT length(string_agg(rpad('', 10000, 'x'), '')) FROM generate_series(1, 1000000)";
    const answers = await Promise.all([1, 2].map(() => query(acmeKey, text)));
    for (const answer of answers) {
      const body = (await answer.json()) as Failure;
      expect([answer.status, body.error.code, body.error.details.errorName, body.error.details.sqlState]).toEqual([
        422,
        'sql_query_failed',
        'QueryOutOfMemory',
        '53200',
      ]);
      expect(body.error.message).toMatch(/^The query needed more memory than one query may use/);
    }
    await othersStillServed();
  });

  it('property: random nestings of amplifier functions over up to 10^6 rows answer 200, 400, 422 or the statement timeout, never another 5xx', async () => {
    // Sizes within the caps mostly (so that most queries reach PostgreSQL), sometimes past them or a parameter.
    const count = fc.constantFrom('3', '10000', '10000', '1000000', '$1');
    const leaf = fc.constantFrom("'x'", "'😀'", 'g::text', "rpad('', 10000, 'ab')");
    const { expr } = fc.letrec<{ expr: string }>((tie) => ({
      expr: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        { arbitrary: leaf, weight: 3 },
        { arbitrary: fc.tuple(tie('expr'), count).map(([e, n]) => `repeat(${e}, ${n})`), weight: 1 },
        { arbitrary: fc.tuple(tie('expr'), count, tie('expr')).map(([e, n, f]) => `rpad(${e}, ${n}, ${f})`), weight: 3 },
        { arbitrary: fc.tuple(tie('expr'), count).map(([e, n]) => `lpad(${e}, ${n})`), weight: 2 },
        { arbitrary: fc.tuple(tie('expr'), count).map(([e, n]) => `format('%${n === '$1' ? '*' : n}s', ${e})`), weight: 2 },
        { arbitrary: fc.tuple(tie('expr'), tie('expr')).map(([e, f]) => `(${e} || ${f})`), weight: 3 },
        { arbitrary: tie('expr').map((e) => `array_to_string(array_fill(${e}, ARRAY[1000]), '')`), weight: 1 },
        { arbitrary: tie('expr').map((e) => `(SELECT string_agg(${e}, '') FROM generate_series(1, 1000) AS g)`), weight: 3 },
      ),
    }));
    await fc.assert(
      fc.asyncProperty(expr, fc.constantFrom('1', '1000', '1000000'), fc.constantFrom(10, 10_000, 10_000_000), async (e, rows, n) => {
        await resetRateLimits(svc);
        const text = `SELECT length(string_agg(${e}, '')) FROM generate_series(1, ${rows}) AS g`;
        const answer = await fetch(`${svc.url}${SQL}`, {
          method: 'POST',
          headers: { ...bearer(acmeKey), 'content-type': 'application/json' },
          // $1 is a count (format's * width included); a parameter the text does not use is an error of its own.
          body: JSON.stringify({ query: text, parameters: text.includes('$1') ? [n] : [] }),
        });
        const body = (await answer.json()) as Failure;
        // 503 timeout is the documented answer of a query that outlives its time budget (docs/app-developers/ontology-sql.md).
        const outcome = answer.status === 503 ? `503 ${body.error.code}` : answer.status;
        expect([200, 400, 422, '503 timeout'], `${text}: ${JSON.stringify(body)}`).toContain(outcome);
      }),
      { numRuns: 12 },
    );
    await othersStillServed();
  }, 180_000);
});
