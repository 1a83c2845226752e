import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectDatabase } from '../../../../domain/db/connect.ts';
import { systemClock } from '../../../../domain/deps.ts';
import { DomainError } from '../../../../domain/errors.ts';
import { findOntologyOfCompany } from '../../../../domain/ontology/repository.ts';
import { executeOntologySql } from '../../../../domain/ontology/sql/execute-ontology-sql.ts';
import { ensureSqlRole, SQL_ROLE_CONNECTIONS } from '../../../../domain/ontology/sql/sql-roles.ts';
import { writeEdits } from '../../../../domain/ontology/write-edits.ts';
import type { ExecuteOntologySqlRequest } from '../../../../schemas/ontology-sql.ts';
import { createTestDatabase, type TestDatabase } from '../../../support/database.ts';
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

const deps = () => ({ db: database.db, clock: systemClock, ontologySql: { databaseUrl: database.url, statementTimeoutMs: TIMEOUT_MS } });
const run = (request: ExecuteOntologySqlRequest, f: OntologyFixture = acme) => executeOntologySql(deps(), f.developer, request);

async function failure(query: string, parameters?: (string | number)[]): Promise<DomainError> {
  const err = await run({ query, ...(parameters ? { parameters } : {}) }).then(
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
    expect([err.code, err.details?.errorName, err.details?.sqlState]).toEqual(['query_invalid', 'QueryPermissionDenied', '42501']);
    expect(err.message).toMatch(/permission denied for schema/);
  });

  it.each([
    'SELECT * FROM public.accounts',
    'SELECT * FROM public.developer_keys',
    'SELECT * FROM public.web_sessions',
    'SELECT * FROM public.ontology_sql_roles',
    'SELECT * FROM public.object_types',
    "SELECT query_to_xml('SELECT * FROM public.accounts', true, false, '')",
    "SELECT nextval('public.ontology_changes_seq_seq')",
  ])('cannot read service tables: %s', async (query) => {
    const err = await failure(query);
    expect([err.code, err.details?.sqlState]).toEqual(['query_invalid', '42501']);
  });

  it('finds only the company’s tables without a schema name', async () => {
    const err = await failure('SELECT * FROM accounts');
    expect([err.code, err.details?.sqlState]).toEqual(['query_invalid', '42P01']);
  });

  it('leaves no side effect: the transaction is rolled back and the connection closed', async () => {
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    try {
      const seen: string[] = [];
      listener.on('notification', (n) => seen.push(n.payload ?? ''));
      await listener.query('LISTEN sql_probe');
      const res = await run({ query: "SELECT pg_notify('sql_probe', 'from-sql')" });
      expect(res.rows).toEqual([['']]);
      // Notifications arrive in commit order: once ours is here, one committed before it would be too.
      await sql`SELECT pg_notify('sql_probe', 'marker')`.execute(database.db);
      await vi.waitFor(() => expect(seen).toContain('marker'));
      expect(seen).toEqual(['marker']);
    } finally {
      await listener.end();
    }
  });

  it('cannot switch to another role, not even in the middle of a SELECT', async () => {
    const midSelect = await failure(
      "SELECT set_config('role', 'postgres', true), query_to_xml('SELECT * FROM public.accounts', true, false, '')",
    );
    expect([midSelect.code, midSelect.details?.sqlState]).toEqual(['query_invalid', '42501']);
    expect(midSelect.message).toMatch(/permission denied to set role/);
    const session = await failure("SELECT set_config('session_authorization', 'postgres', true)");
    expect([session.code, session.details?.sqlState]).toEqual(['query_invalid', '42501']);
    // Back to the session user: that is the SQL role itself, which still reads nothing else.
    const reset = await failure("SELECT set_config('role', 'none', true), query_to_xml('SELECT * FROM public.accounts', true, false, '')");
    expect(reset.details?.sqlState).toBe('42501');
    expect(reset.message).toMatch(/permission denied for table accounts/);
  });

  it.each([
    ['INSERT INTO "sales.Order" (number) VALUES (1000)', 'sql_query_failed', '25006'],
    ['UPDATE "sales.Order" SET amount = 0', 'sql_query_failed', '25006'],
    ['DELETE FROM "sales.Order"', 'sql_query_failed', '25006'],
    ['WITH gone AS (DELETE FROM "sales.Order" RETURNING number) SELECT * FROM gone', 'sql_query_failed', '25006'],
    ['SELECT * FROM "sales.Order" FOR UPDATE', 'sql_query_failed', '25006'],
    ['CREATE TABLE "sales.Evil" (a int)', 'sql_query_failed', '25006'],
    ['DROP TABLE "sales.Order"', 'sql_query_failed', '25006'],
    ['TRUNCATE "sales.Order"', 'sql_query_failed', '25006'],
    ['CREATE EXTENSION dblink', 'sql_query_failed', '25006'],
    ["SELECT dblink_exec('dbname=postgres', 'DROP TABLE x')", 'query_invalid', '42883'],
  ])('cannot write: %s', async (query, code, sqlState) => {
    const err = await failure(query);
    expect([err.code, err.details?.sqlState], err.message).toEqual([code, sqlState]);
    expect(await countOrders(acme)).toBe(30);
  });

  it('stops a statement at the timeout', async () => {
    const err = await failure('SELECT pg_sleep(30)');
    expect([err.code, err.details?.statementTimeoutMs]).toEqual(['timeout', TIMEOUT_MS]);
  });

  it('refuses two statements and runs neither', async () => {
    const err = await failure('SELECT 1; DELETE FROM "sales.Order"');
    expect([err.code, err.details?.errorName]).toEqual(['query_invalid', 'QueryParseError']);
    expect(err.message).toMatch(/multiple commands/);
    expect(await countOrders(acme)).toBe(30);
  });

  it('refuses statements that return no rows, and says why on syntax errors and wrong parameters', async () => {
    expect((await failure('RESET ROLE')).details?.errorName).toBe('NotAQuery');
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
    const schemaName = (await findOntologyOfCompany(database.db, racer.companyId))!.schemaName;
    // Every non-empty set of the four types: fifteen roles set up at once.
    const sets = Array.from({ length: 15 }, (_, i) => names.filter((_, bit) => ((i + 1) >> bit) & 1));
    const roles = await Promise.all(sets.map((tables) => ensureSqlRole(database.db, { companyId: racer.companyId, schemaName, tables })));
    expect(new Set(roles.map((r) => r.name)).size).toBe(sets.length);
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ontology_sql_roles WHERE company_id = ${racer.companyId}`.execute(database.db);
    expect(rows).toEqual([{ n: sets.length }]);
  });

  it('runs at most SQL_ROLE_CONNECTIONS queries of one set of types at once', async () => {
    const schema = (await findOntologyOfCompany(database.db, globex.companyId))!.schemaName;
    const role = await ensureSqlRole(database.db, {
      companyId: globex.companyId,
      schemaName: schema,
      tables: ['sales.Customer', 'sales.Order'],
    });
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
    const role = await ensureSqlRole(database.db, {
      companyId: acme.companyId,
      schemaName: schema,
      tables: ['sales.Customer', 'sales.Order'],
    });
    await sql`REVOKE SELECT ON ${sql.id(schema, 'sales.Order')} FROM ${sql.id(role.name)}`.execute(database.db);
    expect((await run({ query: 'SELECT count(*) FROM "sales.Order"' })).rows).toEqual([[30]]);
  });

  it('a role reads exactly its tables', async () => {
    const schema = (await findOntologyOfCompany(database.db, acme.companyId))!.schemaName;
    const role = await ensureSqlRole(database.db, { companyId: acme.companyId, schemaName: schema, tables: ['sales.Customer'] });
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
      const err = await ensureSqlRole(weak, { companyId: acme.companyId, schemaName: 'ontology_nowhere', tables: ['x.Y'] }).then(
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
