import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectDatabase } from '../../../../domain/db/connect.ts';
import { systemClock } from '../../../../domain/deps.ts';
import { DomainError } from '../../../../domain/errors.ts';
import { findOntologyOfCompany } from '../../../../domain/ontology/repository.ts';
import { executeOntologySql } from '../../../../domain/ontology/sql/execute-ontology-sql.ts';
import { SqlGate } from '../../../../domain/ontology/sql/sql-gate.ts';
import { ensureSqlRole, MAX_ROLES_PER_CREDENTIAL, SQL_ROLE_CONNECTIONS } from '../../../../domain/ontology/sql/sql-roles.ts';
import { writeEdits } from '../../../../domain/ontology/write-edits.ts';
import type { Principal } from '../../../../domain/principal.ts';
import { type ExecuteOntologySqlRequest, type ExecuteOntologySqlResponse, SQL_MAX_RESULT_BYTES } from '../../../../schemas/ontology-sql.ts';
import { createTestDatabase, type TestDatabase } from '../../../support/database.ts';
import { rssGrowthDuring, threadMemoryGrowthDuring } from '../../../support/memory.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../../../support/ontology.ts';

// Ontology SQL over a real PostgreSQL: what a query may read (its company's readable tables only),
// what it may not do (write, switch role, run long, run two statements), and the row limit.

let database: TestDatabase;
let acme: OntologyFixture;
let globex: OntologyFixture;
let globexSchema: string;
const TIMEOUT_MS = 1000;

beforeAll(async () => {
  database = await createTestDatabase();
  acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
  globex = await insertCompanyWithDeveloper(database.db, 'cell-globex');
  await define(database.db, acme, SALES);
  await define(database.db, globex, SALES);
  globexSchema = (await findOntologyOfCompany(database.db, globex.companyId))!.schemaName;
  const orders = Array.from({ length: 30 }, (_, i) => ({
    type: 'create' as const,
    objectType: 'sales.Order',
    properties: { number: i + 1, amount: i * 1.5, paid: i % 2 === 0, placed: '2026-11-22', at: '2026-11-22T10:00:00.000Z', tags: ['x'] },
  }));
  for (const f of [acme, globex]) {
    await database.db.transaction().execute((trx) =>
      writeEdits(trx, {
        companyId: f.companyId,
        accountId: null,
        operationId: `seed-${f.cellId}`,
        actionTypeRid: null,
        edits: [...orders, { type: 'create', objectType: 'sales.Customer', properties: { id: `c-${f.cellId}`, name: f.cellId } }],
      }),
    );
  }
});
afterAll(() => database.drop());

const gate = new SqlGate({ maxRunning: 4, perCompany: 4, maxWaitMs: 10_000 });
const deps = () => ({
  db: database.db,
  clock: systemClock,
  // Normal priority: at nice 19 a busy test machine could hold a backend past these short
  // statement timeouts (backend-priority.test.ts and the HTTP budgets test cover the nice value).
  ontologySql: { databaseUrl: database.url, statementTimeoutMs: TIMEOUT_MS, backendNice: 0, gate },
});
/** The role a fixture's developer key runs as. */
const roleOf = async (f: OntologyFixture, tables: string[]) =>
  ensureSqlRole(database.db, {
    companyId: f.companyId,
    schemaName: (await findOntologyOfCompany(database.db, f.companyId))!.schemaName,
    credential: { kind: 'key', accountId: f.developer.account.id },
    tables,
    statementTimeoutMs: TIMEOUT_MS,
  });
/** The answer as the caller reads it (the use case gives its JSON text, made on the reader thread). */
const run = async (request: ExecuteOntologySqlRequest, f: OntologyFixture = acme): Promise<ExecuteOntologySqlResponse> =>
  JSON.parse((await executeOntologySql(deps(), f.developer, request)).json);

async function failure(query: string, parameters?: (string | number)[], statementTimeoutMs = TIMEOUT_MS): Promise<DomainError> {
  const settings = { ...deps().ontologySql, statementTimeoutMs };
  const err = await executeOntologySql({ ...deps(), ontologySql: settings }, acme.developer, {
    query,
    ...(parameters ? { parameters } : {}),
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, query).toBeInstanceOf(DomainError);
  return err as DomainError;
}

const countOrders = async (f: OntologyFixture) => {
  const schema = (await findOntologyOfCompany(database.db, f.companyId))!.schemaName;
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.id(schema, 'sales.Order')}`.execute(database.db);
  return rows[0]!.n;
};

/** A statement sent straight to PostgreSQL logged in as the role: what the role alone allows, without the parser in front. */
async function asRole(
  role: { name: string; password: string },
  text: string,
): Promise<{ code?: string; message: string; rows?: unknown[] }> {
  const url = new URL(database.url);
  url.username = role.name;
  url.password = role.password;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return { message: 'ok', rows: (await client.query(text)).rows };
  } catch (err) {
    return { code: (err as { code?: string }).code, message: (err as Error).message };
  } finally {
    await client.end();
  }
}

describe('executeOntologySql', () => {
  it('reads the company’s tables with typed columns and positional parameters', async () => {
    const res = await run({
      query: 'SELECT number, amount, paid, placed, at, tags, __rev FROM "sales.Order" WHERE number <= $1 ORDER BY number',
      parameters: [2],
    });
    expect(res.columns).toEqual([
      { name: 'number', type: 'bigint' },
      { name: 'amount', type: 'double precision' },
      { name: 'paid', type: 'boolean' },
      { name: 'placed', type: 'date' },
      { name: 'at', type: 'timestamp with time zone' },
      { name: 'tags', type: 'jsonb' },
      { name: '__rev', type: 'bigint' },
    ]);
    expect(res.rows).toEqual([
      [1, 0, true, '2026-11-22', '2026-11-22T10:00:00.000Z', ['x'], 1],
      [2, 1.5, false, '2026-11-22', '2026-11-22T10:00:00.000Z', ['x'], 1],
    ]);
    expect([res.ontology, res.truncated, res.dryRun]).toEqual(['cell-acme', false, false]);
  });

  it('sees its own company’s objects only, with the same table names', async () => {
    const res = await run({ query: 'SELECT id FROM "sales.Customer"' }, globex);
    expect(res.rows).toEqual([['c-cell-globex']]);
  });

  it('enforces the row limit and says when it cut the result', async () => {
    const cut = await run({ query: 'SELECT number FROM "sales.Order" ORDER BY number', rowLimit: 10 });
    expect(cut.rows.map((r) => r[0])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(cut.truncated).toBe(true);
    const exact = await run({ query: 'SELECT number FROM "sales.Order"', rowLimit: 30 });
    expect([exact.rows.length, exact.truncated]).toEqual([30, false]);
    const series = await run({ query: 'SELECT g FROM generate_series(1, 20000) AS g' });
    expect([series.rows.length, series.truncated, series.rows.at(-1)]).toEqual([10_000, true, [10_000]]);
  });

  it('cannot read another company’s tables', async () => {
    const err = await failure(`SELECT * FROM "${globexSchema}"."sales.Order"`);
    expect([err.code, err.details?.errorName, err.details?.position]).toEqual(['query_invalid', 'RelationNotAllowed', 15]);
    expect(err.message).toContain(globexSchema);
  });

  it.each([
    ['SELECT * FROM public.accounts', 'RelationNotAllowed'],
    ['SELECT * FROM public.developer_keys', 'RelationNotAllowed'],
    ['SELECT * FROM public.ontology_sql_roles', 'RelationNotAllowed'],
    ['SELECT * FROM pg_catalog.pg_authid', 'RelationNotAllowed'],
    ['SELECT * FROM pg_class', 'RelationNotAllowed'],
    ['SELECT * FROM information_schema.tables', 'RelationNotAllowed'],
    ["SELECT query_to_xml('SELECT * FROM public.accounts', true, false, '')", 'FunctionNotAllowed'],
    ["SELECT nextval('public.ontology_changes_seq_seq')", 'FunctionNotAllowed'],
    ["SELECT 'public.accounts'::regclass::oid", 'TypeNotAllowed'],
  ])('cannot read service tables or catalogs: %s', async (query, errorName) => {
    const err = await failure(query);
    expect([err.code, err.details?.errorName]).toEqual(['query_invalid', errorName]);
  });

  it('finds only the company’s tables without a schema name', async () => {
    const err = await failure('SELECT * FROM accounts');
    expect([err.code, err.details?.sqlState]).toEqual(['query_invalid', '42P01']);
  });

  it('refuses a function with a side effect before anything runs: pg_notify sends nothing', async () => {
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    try {
      const seen: string[] = [];
      listener.on('notification', (n) => seen.push(n.payload ?? ''));
      await listener.query('LISTEN sql_probe');
      const err = await failure("SELECT pg_notify('sql_probe', 'from-sql')");
      expect([err.code, err.details?.errorName]).toEqual(['query_invalid', 'FunctionNotAllowed']);
      // Notifications arrive in commit order: once ours is here, one committed before it would be too.
      await sql`SELECT pg_notify('sql_probe', 'marker')`.execute(database.db);
      await vi.waitFor(() => expect(seen).toContain('marker'));
      expect(seen).toEqual(['marker']);
    } finally {
      await listener.end();
    }
  });

  it('refuses set_config: no role switch, not even in the middle of a SELECT', async () => {
    for (const query of [
      "SELECT set_config('role', 'postgres', true), query_to_xml('SELECT * FROM public.accounts', true, false, '')",
      "SELECT set_config('session_authorization', 'postgres', true)",
      "SELECT current_setting('statement_timeout')",
    ]) {
      const err = await failure(query);
      expect([err.code, err.details?.errorName], query).toEqual(['query_invalid', 'FunctionNotAllowed']);
    }
  });

  it('the role itself cannot switch role either, should a statement get past the parser', async () => {
    const role = await roleOf(acme, ['sales.Customer', 'sales.Order']);
    const midSelect = await asRole(
      role,
      "SELECT set_config('role', 'postgres', true), query_to_xml('SELECT * FROM public.accounts', true, false, '')",
    );
    expect(midSelect).toMatchObject({ code: '42501', message: expect.stringMatching(/permission denied to set role/) });
    const reset = await asRole(
      role,
      "SELECT set_config('role', 'none', true), query_to_xml('SELECT * FROM public.accounts', true, false, '')",
    );
    expect(reset).toMatchObject({ code: '42501', message: expect.stringMatching(/permission denied for table accounts/) });
  });

  it.each([
    'INSERT INTO "sales.Order" (number) VALUES (1000)',
    'UPDATE "sales.Order" SET amount = 0',
    'DELETE FROM "sales.Order"',
    'WITH gone AS (DELETE FROM "sales.Order" RETURNING number) SELECT * FROM gone',
    'WITH gone AS (UPDATE "sales.Order" SET amount = 0 RETURNING number) SELECT * FROM gone',
    'SELECT * FROM "sales.Order" FOR UPDATE',
    'SELECT * FROM "sales.Order" FOR KEY SHARE',
    'SELECT * INTO copy FROM "sales.Order"',
    'CREATE TABLE "sales.Evil" (a int)',
    'DROP TABLE "sales.Order"',
    'TRUNCATE "sales.Order"',
    'CREATE EXTENSION dblink',
    'SET statement_timeout = 0',
    'DO $$BEGIN DELETE FROM "sales.Order"; END$$',
  ])('refuses a statement that writes, locks or is no SELECT, before it runs: %s', async (query) => {
    const err = await failure(query);
    expect([err.code, err.details?.errorName], err.message).toEqual(['query_invalid', 'NotAQuery']);
    expect(await countOrders(acme)).toBe(30);
  });

  it('refuses dblink_exec as a function that is not on the list', async () => {
    const err = await failure("SELECT dblink_exec('dbname=postgres', 'DROP TABLE x')");
    expect([err.code, err.details?.errorName, err.message]).toEqual([
      'query_invalid',
      'FunctionNotAllowed',
      expect.stringContaining('dblink_exec'),
    ]);
  });

  it('stops a statement at the timeout', async () => {
    // 10^12 rows from two series within the row cap (one of 10^12 is refused before it runs).
    const err = await failure('SELECT count(*) FROM (SELECT generate_series(1, 1000000)) AS a, (SELECT generate_series(1, 1000000)) AS b');
    expect([err.code, err.details?.statementTimeoutMs]).toEqual(['timeout', TIMEOUT_MS]);
  });

  it('refuses two statements and runs neither', async () => {
    const err = await failure('SELECT 1; DELETE FROM "sales.Order"');
    expect([err.code, err.details?.errorName]).toEqual(['query_invalid', 'NotAQuery']);
    expect(err.message).toMatch(/holds 2 statements/);
    expect(await countOrders(acme)).toBe(30);
  });

  it('refuses statements that return no rows, and says why on syntax errors and wrong parameters', async () => {
    expect((await failure('RESET ROLE')).details?.errorName).toBe('NotAQuery');
    expect((await failure('-- only a comment')).details?.errorName).toBe('NotAQuery');
    const syntax = await failure('SELEC 1');
    expect([syntax.code, syntax.details?.sqlState, syntax.details?.position]).toEqual(['query_invalid', '42601', 1]);
    const params = await failure('SELECT $1::int + $2::int', [1]);
    expect([params.code, params.details?.sqlState]).toEqual(['query_invalid', '08P01']);
    const runtime = await failure('SELECT 1 / 0');
    expect([runtime.code, runtime.details?.sqlState]).toEqual(['sql_query_failed', '22012']);
  });

  it('a dry run parses and describes without running', async () => {
    const query = 'SELECT length(id) / 0 AS boom, id FROM "sales.Customer"';
    expect((await failure(query)).details?.sqlState).toBe('22012');
    const dry = await run({ query, dryRun: true });
    expect(dry).toEqual({
      ontology: 'cell-acme',
      columns: [
        { name: 'boom', type: 'integer' },
        { name: 'id', type: 'text' },
      ],
      rows: [],
      truncated: false,
      dryRun: true,
    });
  });

  it('makes one role per set of tables, once, even when first uses race', async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => run({ query: 'SELECT count(*) AS n FROM "sales.Customer"' }, globex)));
    expect([a!.rows, b!.rows, c!.rows]).toEqual([[[1]], [[1]], [[1]]]);
    const roles = await database.db.selectFrom('ontology_sql_roles').select(['role_name', 'company_id', 'object_types']).execute();
    expect(roles.filter((r) => r.company_id === globex.companyId)).toEqual([
      {
        role_name: expect.stringMatching(/^svc_sql_[0-9a-f]{40}$/),
        company_id: globex.companyId,
        object_types: ['sales.Customer', 'sales.Order'],
      },
    ]);
    const role = roles.find((r) => r.company_id === globex.companyId)!.role_name;
    const { rows } = await sql<{ rolcanlogin: boolean; rolsuper: boolean; rolcreaterole: boolean; memberships: number }>`
      SELECT rolcanlogin, rolsuper, rolcreaterole,
             (SELECT count(*)::int FROM pg_auth_members m WHERE m.member = r.oid) AS memberships
      FROM pg_roles r WHERE rolname = ${role}`.execute(database.db);
    expect(rows).toEqual([{ rolcanlogin: true, rolsuper: false, rolcreaterole: false, memberships: 0 }]);
  });

  it('first uses of different sets of types racing in one company: each answers (was 500 "tuple concurrently updated")', async () => {
    // Each role's GRANT USAGE rewrites the one schema's ACL row; two roles set up at once used to collide there.
    const racer = await insertCompanyWithDeveloper(database.db, 'cell-racer');
    const names = ['race.A', 'race.B', 'race.C', 'race.D'];
    await define(database.db, racer, {
      types: names.map((apiName) => ({ apiName, primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } })),
    });
    // Every non-empty set of the four types: fifteen roles set up at once (one credential keeps the
    // newest MAX_ROLES_PER_CREDENTIAL of them, sql-roles.test.ts).
    const sets = Array.from({ length: 15 }, (_, i) => names.filter((_, bit) => ((i + 1) >> bit) & 1));
    const roles = await Promise.all(sets.map((tables) => roleOf(racer, tables)));
    expect(new Set(roles.map((r) => r.name)).size).toBe(sets.length);
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ontology_sql_roles WHERE company_id = ${racer.companyId}`.execute(database.db);
    expect(rows).toEqual([{ n: MAX_ROLES_PER_CREDENTIAL }]);
  });

  it('runs at most SQL_ROLE_CONNECTIONS queries of one set of types at once', async () => {
    const role = await roleOf(globex, ['sales.Customer', 'sales.Order']);
    const url = new URL(database.url);
    url.username = role.name;
    url.password = role.password;
    const held = Array.from({ length: SQL_ROLE_CONNECTIONS }, () => new pg.Client({ connectionString: url.toString() }));
    await Promise.all(held.map((c) => c.connect()));
    try {
      const err = await run({ query: 'SELECT 1' }, globex).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect([(err as DomainError).code, (err as DomainError).retryAfterSeconds]).toEqual(['rate_limited', 1]);
    } finally {
      await Promise.all(held.map((c) => c.end()));
    }
    expect((await run({ query: 'SELECT 1' }, globex)).rows).toEqual([[1]]);
  });

  it('sets a role up again when its grants went missing', async () => {
    const schema = (await findOntologyOfCompany(database.db, acme.companyId))!.schemaName;
    const role = await roleOf(acme, ['sales.Customer', 'sales.Order']);
    await sql`REVOKE SELECT ON ${sql.id(schema, 'sales.Order')} FROM ${sql.id(role.name)}`.execute(database.db);
    expect((await run({ query: 'SELECT count(*) FROM "sales.Order"' })).rows).toEqual([[30]]);
  });

  it('a role reads exactly its tables', async () => {
    const schema = (await findOntologyOfCompany(database.db, acme.companyId))!.schemaName;
    const role = await roleOf(acme, ['sales.Customer']);
    const { rows } = await sql<{ customer: boolean; order: boolean }>`
      SELECT has_table_privilege(${role.name}, ${`"${schema}"."sales.Customer"`}, 'SELECT') AS customer,
             has_table_privilege(${role.name}, ${`"${schema}"."sales.Order"`}, 'SELECT') AS order`.execute(database.db);
    expect(rows).toEqual([{ customer: true, order: false }]);
  });

  it('says clearly when the database user cannot make roles', async () => {
    const user = `svc_test_nocreaterole_${Date.now()}`;
    await sql`CREATE ROLE ${sql.id(user)} LOGIN PASSWORD 'no-create-role-1'`.execute(database.db);
    await sql`GRANT SELECT ON ontology_sql_roles TO ${sql.id(user)}`.execute(database.db);
    const url = new URL(database.url);
    url.username = user;
    url.password = 'no-create-role-1';
    const weak = connectDatabase({ connectionString: url.toString(), maxConnections: 1 });
    try {
      const err = await ensureSqlRole(weak, {
        companyId: acme.companyId,
        schemaName: 'ontology_nowhere',
        credential: { kind: 'key', accountId: acme.developer.account.id },
        tables: ['x.Y'],
        statementTimeoutMs: TIMEOUT_MS,
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DomainError);
      expect([(err as DomainError).code, (err as DomainError).message]).toEqual([
        'service_unavailable',
        expect.stringMatching(/needs the CREATEROLE attribute/),
      ]);
    } finally {
      await weak.destroy();
    }
  });
});

describe('issue 28: ontology SQL cannot slow, starve or crash other companies', () => {
  // Long enough that only the byte budget can stop these queries (reading them whole takes far longer).
  const LONG_MS = 60_000;

  it('finding 1: DO $$BEGIN BEGIN PERFORM pg_sleep(21); EXCEPTION WHEN query_canceled THEN NULL; END; … END$$ is refused before it runs', async () => {
    const err = await failure(
      'DO $$BEGIN BEGIN PERFORM pg_sleep(21); EXCEPTION WHEN query_canceled THEN NULL; END; PERFORM pg_sleep(6); END$$',
    );
    expect([err.code, err.details?.errorName, err.message]).toEqual(['query_invalid', 'NotAQuery', 'Only a SELECT may run here, not DO.']);
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'DO $$BEGIN BEGIN PERFORM%'`.execute(database.db);
    expect(rows[0]!.n).toBe(0);
  });

  it.each([
    'DO $$BEGIN FOR i IN 1..10000000 LOOP PERFORM pg_advisory_xact_lock(i); END LOOP; END$$',
    'SELECT count(pg_advisory_xact_lock(g)) FROM generate_series(1, 10000000) AS g',
    'SELECT pg_catalog.pg_advisory_lock_shared(1)',
    'SELECT pg_try_advisory_xact_lock(1)',
  ])('finding 2: an advisory-lock loop cannot fill the shared lock table: %s', async (query) => {
    const err = await failure(query);
    expect(err.code).toBe('query_invalid');
    expect(['NotAQuery', 'FunctionNotAllowed']).toContain(err.details?.errorName);
  });

  // repeat is refused before it runs since the PostgreSQL memory fix; rows of 1 MB are still made
  // from 25 columns of 10,000 four-byte characters (the rpad cap).
  const ROWS_OF_1_MB = `SELECT ${'x, '.repeat(24)}x FROM (SELECT rpad('', 10000, '😀') AS x FROM generate_series(1, 6000)) AS s`;
  it("finding 3: two concurrent SELECT of 6,000 rows of 1 MB (25 columns of rpad('', 10000, '😀'); was repeat('x',1000000)) stop at the byte budget, memory bounded", async () => {
    const growth = await rssGrowthDuring(async () => {
      const errs = await Promise.all([1, 2].map(() => failure(ROWS_OF_1_MB, [], LONG_MS)));
      for (const err of errs) {
        expect([err.code, err.details?.errorName, err.details?.maxBytes]).toEqual([
          'sql_query_failed',
          'ResultTooLarge',
          SQL_MAX_RESULT_BYTES,
        ]);
      }
    });
    // 6 GB each if read whole; the budget lets each hold about 16 MiB (plus its parsed rows).
    expect(growth).toBeLessThan(400 * 1024 * 1024);
  });

  it('issue 28: a result past the byte budget is read on the SQL reader thread, never on the thread that answers everyone (its garbage paused the event loop for 60-90 ms)', async () => {
    const growth = await threadMemoryGrowthDuring(async () => {
      const err = await failure(ROWS_OF_1_MB, [], LONG_MS);
      expect(err.details?.errorName).toBe('ResultTooLarge');
    });
    // Read on this thread, the budget's 16 MiB of rows arrive here before the query is stopped.
    expect(growth).toBeLessThan(SQL_MAX_RESULT_BYTES / 4);
  });

  it("finding 3: one huge row (SELECT string_agg(rpad('', 10000, 'x'), '') of 2,000 rows: 20 MB; was repeat('x', 20000000)) stops at the byte budget", async () => {
    const err = await failure("SELECT string_agg(rpad('', 10000, 'x'), '') FROM generate_series(1, 2000)", [], LONG_MS);
    expect([err.code, err.details?.errorName]).toEqual(['sql_query_failed', 'ResultTooLarge']);
  });

  it('finding 3: json_agg of 20,000 values in one row (past the 10,000-row cap) is refused by the byte budget', async () => {
    const err = await failure("SELECT json_agg(rpad('', 1000, 'x') || g) FROM generate_series(1, 20000) AS g", [], LONG_MS);
    expect([err.code, err.details?.errorName]).toEqual(['sql_query_failed', 'ResultTooLarge']);
    // Under the budget the same shape answers.
    const small = await run({ query: 'SELECT json_agg(g) FROM generate_series(1, 20000) AS g' });
    expect((small.rows[0]![0] as number[]).length).toBe(20_000);
  });

  it('finding 5: a member key, an agent key and a session of one account run as different roles', async () => {
    const principals: Principal[] = [
      acme.developer,
      { ...acme.developer, agent: { id: 'agent-1', restrictions: null } } as Principal,
      {
        kind: 'session',
        account: acme.developer.account,
        sessionHash: Buffer.alloc(32),
        licenses: [{ companyId: acme.companyId, cellId: acme.cellId, role: 'developer' }],
      },
    ];
    for (const p of principals) await executeOntologySql(deps(), p, { query: 'SELECT 1', ontology: 'cell-acme' });
    const roles = await database.db
      .selectFrom('ontology_sql_roles')
      .select(['role_name', 'credential_kind'])
      .where('company_id', '=', acme.companyId)
      .where('account_id', '=', acme.developer.account.id)
      .where(sql<boolean>`object_types = ARRAY['sales.Customer', 'sales.Order']`)
      .execute();
    expect(roles.map((r) => r.credential_kind).sort()).toEqual(['agent', 'key', 'session']);
    expect(new Set(roles.map((r) => r.role_name)).size).toBe(3);
  });

  it("finding 5: another credential's query is invisible in pg_stat_activity and pg_cancel_backend is refused, even past the parser", async () => {
    for (const query of ['SELECT query FROM pg_stat_activity', 'SELECT pg_cancel_backend(1)', 'SELECT pg_terminate_backend(1)']) {
      const err = await failure(query);
      expect([err.code, err.details?.errorName], query).toEqual([
        'query_invalid',
        query.includes('pg_stat') ? 'RelationNotAllowed' : 'FunctionNotAllowed',
      ]);
    }
    // Straight as the roles: one credential's backend, another's attempts.
    const mine = await roleOf(acme, ['sales.Customer', 'sales.Order']);
    const theirs = await ensureSqlRole(database.db, {
      companyId: acme.companyId,
      schemaName: (await findOntologyOfCompany(database.db, acme.companyId))!.schemaName,
      credential: { kind: 'agent', accountId: acme.developer.account.id },
      tables: ['sales.Customer', 'sales.Order'],
      statementTimeoutMs: TIMEOUT_MS,
    });
    expect(theirs.name).not.toBe(mine.name);
    const url = new URL(database.url);
    url.username = theirs.name;
    url.password = theirs.password;
    const agent = new pg.Client({ connectionString: url.toString() });
    await agent.connect();
    try {
      await agent.query("SELECT 'secret agent query'");
      const pid = (agent as unknown as { processID: number }).processID;
      expect(await asRole(mine, 'SELECT query FROM pg_stat_activity')).toMatchObject({ code: '42501' });
      expect(await asRole(mine, `SELECT pg_cancel_backend(${pid})`)).toMatchObject({
        code: '42501',
        message: expect.stringMatching(/permission denied to cancel query/),
      });
    } finally {
      await agent.end();
    }
  });

  it("finding 5: pg_stat_all_tables (other companies' row counts) is refused, and the role cannot read it either", async () => {
    for (const view of ['pg_stat_all_tables', 'pg_stat_user_tables', 'pg_statio_all_tables', 'pg_catalog.pg_stat_xact_user_tables']) {
      const err = await failure(`SELECT relname, n_live_tup FROM ${view}`);
      expect([err.code, err.details?.errorName], view).toEqual(['query_invalid', 'RelationNotAllowed']);
    }
    const role = await roleOf(acme, ['sales.Customer', 'sales.Order']);
    expect(await asRole(role, 'SELECT relname, n_live_tup FROM pg_stat_all_tables')).toMatchObject({
      code: '42501',
      message: expect.stringMatching(/permission denied for view pg_stat_all_tables/),
    });
  });

  it('a role carries its limits: timeouts, work_mem, temp_file_limit, no parallel workers, read-only, its schema', async () => {
    const schema = (await findOntologyOfCompany(database.db, acme.companyId))!.schemaName;
    const role = await ensureSqlRole(database.db, {
      companyId: acme.companyId,
      schemaName: schema,
      credential: { kind: 'ticket', accountId: acme.developer.account.id },
      tables: ['sales.Customer'],
      statementTimeoutMs: TIMEOUT_MS,
    });
    const { rows } = await sql<{ setconfig: string[] }>`
      SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole WHERE r.rolname = ${role.name}`.execute(
      database.db,
    );
    expect(rows[0]!.setconfig.sort()).toEqual(
      [
        `statement_timeout=${TIMEOUT_MS}ms`,
        `lock_timeout=${TIMEOUT_MS}ms`,
        `idle_in_transaction_session_timeout=${TIMEOUT_MS}ms`,
        'work_mem=16MB',
        'max_parallel_workers_per_gather=0',
        'temp_file_limit=256MB',
        'default_transaction_read_only=on',
        `search_path=${schema}`,
      ].sort(),
    );
  });
});
