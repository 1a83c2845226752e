import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findOntology } from '../../../../domain/ontology/repository.ts';
import { writeEdits } from '../../../../domain/ontology/write-edits.ts';
import { injected, rawGet, release } from '../../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../../support/identity.ts';
import { SALES } from '../../../support/ontology.ts';
import { startTestService, type TestService } from '../../../support/service.ts';

// Ontology SQL over real HTTP: what each caller's queries see (the types its apps' manifests list),
// the database description, and the errors as the API answers them.

let svc: TestService;
let devKey: string;
let memberKey: string;
let ticket: string;
let multiCookie: string;
const SQL = '/api/v1/sqlQueries/executeOntology';

beforeAll(async () => {
  svc = await startTestService({ env: { SVC_SQL_STATEMENT_TIMEOUT_MS: '500' } });
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  multiCookie = await signIn(svc, 'multi');
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(devKey) });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  const ontology = (await findOntology(svc.database.db, 'cell-acme'))!;
  await svc.database.db.transaction().execute((trx) =>
    writeEdits(trx, {
      companyId: ontology.companyId,
      accountId: null,
      operationId: 'sql-objects',
      actionTypeRid: null,
      edits: [
        { type: 'create', objectType: 'sales.Customer', properties: { id: 'c1', name: 'Ada' } },
        { type: 'create', objectType: 'sales.Order', properties: { number: 1, amount: 9.5 } },
      ],
    }),
  );
  // The member's apps list sales.Customer only.
  await release(svc, devKey, {
    namespace: 'cell-acme',
    slug: 'crm',
    version: '1.0.0',
    manifest: { semantic: { types: ['sales.Customer'] } },
  });
  const memberCookie = await signIn(svc, 'mo');
  ticket = injected((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/crm`, { cookie: memberCookie })).text).ticket;
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const query = (headers: Record<string, string>, body: Record<string, unknown>) => svc.call('POST', SQL, { body, headers });

describe('POST /api/v1/sqlQueries/executeOntology', () => {
  it('answers columns, rows and truncated to a developer', async () => {
    const res = await query(bearer(devKey), { query: 'SELECT o.number, o.amount, c.name FROM "sales.Order" o, "sales.Customer" c' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      ontology: 'cell-acme',
      columns: [
        { name: 'number', type: 'bigint' },
        { name: 'amount', type: 'double precision' },
        { name: 'name', type: 'text' },
      ],
      rows: [[1, 9.5, 'Ada']],
      truncated: false,
      dryRun: false,
    });
  });

  it('a member reads the types its apps list and nothing else; so does its ticket', async () => {
    for (const headers of [bearer(memberKey), bearer(ticket)]) {
      const listed = await query(headers, { query: 'SELECT id, name FROM "sales.Customer"' });
      expect([listed.status, listed.body.data?.rows]).toEqual([200, [['c1', 'Ada']]]);
      const unlisted = await query(headers, { query: 'SELECT * FROM "sales.Order"' });
      expect([unlisted.status, unlisted.body.error.code, unlisted.body.error.details.errorName]).toEqual([
        400,
        'query_invalid',
        'QueryPermissionDenied',
      ]);
    }
  });

  it('another company’s developer finds no ontology of its own to query, and cannot name Acme’s', async () => {
    const gus = await passwordKey(svc, 'gus');
    const own = await query(bearer(gus), { query: 'SELECT 1' });
    expect([own.status, own.body.error.code]).toEqual([404, 'ontology_not_found']);
    const named = await query(bearer(gus), { query: 'SELECT 1', ontology: 'cell-acme' });
    expect([named.status, named.body.error.code]).toEqual([404, 'ontology_not_found']);
  });

  it('a session of several companies names the ontology', async () => {
    const unnamed = await query(browser(multiCookie, svc), { query: 'SELECT 1' });
    expect([unnamed.status, unnamed.body.error.code, unnamed.body.error.details.companies]).toEqual([
      400,
      'company_required',
      ['cell-acme', 'cell-globex'],
    ]);
    const named = await query(browser(multiCookie, svc), { query: 'SELECT count(*) AS n FROM "sales.Customer"', ontology: 'cell-acme' });
    expect([named.status, named.body.data?.rows]).toEqual([200, [[1]]]);
  });

  it('answers a statement timeout with timeout, a runtime failure with sql_query_failed, a write with query_invalid', async () => {
    const slow = await query(bearer(devKey), {
      query: 'SELECT count(*) FROM (SELECT generate_series(1, 1000000)) AS a, (SELECT generate_series(1, 1000000)) AS b',
    });
    expect([slow.status, slow.body.error.code]).toEqual([503, 'timeout']);
    const runtime = await query(bearer(devKey), { query: 'SELECT 1 / 0' });
    expect([runtime.status, runtime.body.error.code, runtime.body.error.details.sqlState]).toEqual([422, 'sql_query_failed', '22012']);
    const write = await query(bearer(devKey), { query: 'DELETE FROM "sales.Order"' });
    expect([write.status, write.body.error.code, write.body.error.details.errorName]).toEqual([400, 'query_invalid', 'NotAQuery']);
    const two = await query(bearer(devKey), { query: 'SELECT 1; SELECT 2' });
    expect([two.status, two.body.error.code]).toEqual([400, 'query_invalid']);
  });

  it("a timestamp past JavaScript's year 275760 answers 422 ValueOutOfRange (was a 500 from toISOString), also inside an array", async () => {
    for (const text of ["SELECT '290000-01-01 00:00:00+00'::timestamptz", "SELECT ARRAY['290000-01-01 00:00:00+00'::timestamptz]"]) {
      const far = await query(bearer(devKey), { query: text });
      expect([far.status, far.body.error.code, far.body.error.details.errorName]).toEqual([422, 'sql_query_failed', 'ValueOutOfRange']);
    }
    const asText = await query(bearer(devKey), { query: "SELECT '290000-01-01 00:00:00+00'::timestamptz::text AS at" });
    expect([asText.status, asText.body.data?.rows]).toEqual([200, [['290000-01-01 00:00:00+00']]]);
  });

  it('issue 28 finding 1: DO $$BEGIN BEGIN PERFORM pg_sleep(21); EXCEPTION WHEN query_canceled THEN NULL; END; PERFORM pg_sleep(6); END$$ answers 400 without running', async () => {
    const res = await query(bearer(memberKey), {
      query: 'DO $$BEGIN BEGIN PERFORM pg_sleep(21); EXCEPTION WHEN query_canceled THEN NULL; END; PERFORM pg_sleep(6); END$$',
    });
    expect([res.status, res.body.error.code, res.body.error.details.errorName, res.body.error.message]).toEqual([
      400,
      'query_invalid',
      'NotAQuery',
      'Only a SELECT may run here, not DO.',
    ]);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'DO %pg_sleep%'`.execute(
      svc.database.db,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('issue 28 finding 2: an advisory-lock loop (DO … LOOP PERFORM pg_advisory_xact_lock(i)) is refused, and so is the SELECT form', async () => {
    const loop = await query(bearer(memberKey), {
      query: 'DO $$BEGIN FOR i IN 1..100000000 LOOP PERFORM pg_advisory_xact_lock(i); END LOOP; END$$',
    });
    expect([loop.status, loop.body.error.code, loop.body.error.details.errorName]).toEqual([400, 'query_invalid', 'NotAQuery']);
    const select = await query(bearer(memberKey), { query: 'SELECT pg_advisory_xact_lock(g) FROM generate_series(1, 100000000) AS g' });
    expect([select.status, select.body.error.code, select.body.error.details.errorName, select.body.error.message]).toEqual([
      400,
      'query_invalid',
      'FunctionNotAllowed',
      expect.stringContaining('"pg_advisory_xact_lock" is not allowed'),
    ]);
  });

  it("issue 28 finding 5: pg_stat_activity (other credentials' query text), pg_cancel_backend and pg_stat_all_tables are refused", async () => {
    for (const [text, errorName] of [
      ['SELECT pid, usename, query FROM pg_stat_activity', 'RelationNotAllowed'],
      ['SELECT pg_cancel_backend(pid) FROM generate_series(1, 3) AS pid', 'FunctionNotAllowed'],
      ['SELECT relname, n_live_tup, n_tup_ins FROM pg_stat_all_tables', 'RelationNotAllowed'],
    ]) {
      const res = await query(bearer(memberKey), { query: text });
      expect([res.status, res.body.error.code, res.body.error.details.errorName], text).toEqual([400, 'query_invalid', errorName]);
    }
  });

  it('one company’s flood from an address does not limit another company’s SQL from the same address (the 120 a minute were per IP only)', async () => {
    // Both companies call from 127.0.0.1, as behind one NAT. Acme's member uses up its 120 (each a
    // cheap 400); up to 240 in case a minute window ends during the flood.
    let limited = await query(bearer(memberKey), {});
    for (let sent = 1; limited.status === 400 && sent < 241; sent++) limited = await query(bearer(memberKey), {});
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // So does another credential of the same company from the same address: the budget is the company's.
    expect((await query(bearer(devKey), { query: 'SELECT 1' })).status).toBe(429);
    const gus = await passwordKey(svc, 'gus', 'cell-globex');
    const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-globex/types', {
      body: { types: [{ apiName: 'hr.Person', primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } }] },
      headers: bearer(gus),
    });
    expect(defined.status, JSON.stringify(defined.body)).toBe(200);
    const other = await query(bearer(gus), { query: 'SELECT count(*) AS n FROM "hr.Person"' });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    expect(other.body.data.rows).toEqual([[0]]);
  });

  it('validates the request strictly', async () => {
    const tooMany = await query(bearer(devKey), { query: 'SELECT 1', rowLimit: 10_001 });
    expect([tooMany.status, tooMany.body.error.code]).toEqual([400, 'invalid_payload']);
    const unknown = await query(bearer(devKey), { query: 'SELECT 1', branch: 'main' });
    expect([unknown.status, unknown.body.error.details.problems[0].path]).toEqual([400, 'branch']);
  });
});

describe('GET /api/v1/ontologies/{ns}/database', () => {
  it('describes the readable types as tables with their SQL types, and the limits', async () => {
    const dev = await svc.call('GET', '/api/v1/ontologies/cell-acme/database', { headers: bearer(devKey) });
    expect(dev.status, JSON.stringify(dev.body)).toBe(200);
    expect(dev.body.data.tables.map((t: { name: string }) => t.name)).toEqual(['sales.Customer', 'sales.Order']);
    expect(dev.body.data.tables[0]).toEqual({
      name: 'sales.Customer',
      objectTypeRid: expect.stringMatching(/^ri\.ontology\.svc\.object-type\./),
      primaryKey: 'id',
      columns: [
        { name: 'id', type: 'text', dataType: 'string' },
        { name: 'name', type: 'text', dataType: 'string' },
        { name: 'tier', type: 'integer', dataType: 'integer' },
        { name: '__rev', type: 'bigint', dataType: 'system' },
        { name: '__updated_at', type: 'timestamptz', dataType: 'system' },
      ],
    });
    expect(dev.body.data.limits).toEqual({ maxRows: 10_000, statementTimeoutMs: 500, statements: 1 });
    const member = await svc.call('GET', '/api/v1/ontologies/cell-acme/database', { headers: bearer(memberKey) });
    expect(member.body.data.tables.map((t: { name: string }) => t.name)).toEqual(['sales.Customer']);
  });
});

describe('POST .../database/sync and .../database/credentials', () => {
  it('are refused with 409 database_access_unavailable and the reason, issue no login, and keep an unreadable ontology 404', async () => {
    const roles = () => svc.database.db.selectFrom('ontology_sql_roles').select('role_name').execute();
    const before = await roles();
    for (const [what, reason] of [
      ['credentials', 'gate_bypass'],
      ['sync', 'live_tables'],
    ] as const) {
      const res = await svc.call('POST', `/api/v1/ontologies/cell-acme/database/${what}`, { headers: bearer(devKey) });
      expect([res.status, res.body.error?.code, res.body.error?.details?.reason], JSON.stringify(res.body)).toEqual([
        409,
        'database_access_unavailable',
        reason,
      ]);
      expect(res.body.error.message).toMatch(/executeOntology|live object types/);
      const outsider = await svc.call('POST', `/api/v1/ontologies/cell-globex/database/${what}`, { headers: bearer(devKey) });
      expect([outsider.status, outsider.body.error.code]).toEqual([404, 'ontology_not_found']);
    }
    expect(await roles()).toEqual(before);
  });
});
