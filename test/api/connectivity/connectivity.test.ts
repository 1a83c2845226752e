import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlatformTypes } from '../../../domain/ontology/index.ts';
import { createSourceDatabase, type SourceDatabase } from '../../support/connectivity.ts';
import { bearer, passwordKey, seedCompanies } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Data connections and syncs over HTTP: secrets are write-only (never answered, never stored or
// logged in clear), each kind's connection test reaches a real source on loopback, and syncs are
// checked against the object type they write.

let svc: TestService;
let source: SourceDatabase;
let endpoint: http.Server;
let endpointUrl: string;
let dana: string;
let gus: string;
const base = '/api/v1/connectivity/cell-acme';
const AUTH_HEADER = 'Bearer endpoint-token-7f3a9c';

beforeAll(async () => {
  svc = await startTestService({ env: { SVC_CONNECTIVITY_PRIVATE_NETWORKS: 'allow' } });
  await seedCompanies(svc);
  dana = await passwordKey(svc, 'dana');
  gus = await passwordKey(svc, 'gus');
  source = await createSourceDatabase();
  await source.client.query('CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric, placed_at timestamptz)');
  endpoint = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(req.headers.authorization === AUTH_HEADER ? JSON.stringify({ items: [{ id: 1 }] }) : '{"error":"no"}');
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/orders`;
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dana) });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
}, 60_000);
afterAll(async () => {
  await svc?.close();
  await source?.drop();
  endpoint?.close();
});

const createPostgres = (name: string, connectionString: string) =>
  svc.call('POST', `${base}/connections`, { body: { kind: 'postgresql', name, connectionString }, headers: bearer(dana) });

describe('data connections', () => {
  it('keeps a PostgreSQL connection string write-only: never answered, sealed in the database, never logged', async () => {
    const created = await createPostgres('orders-db', source.url);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    expect(created.body.data).toMatchObject({ kind: 'postgresql', name: 'orders-db', hasSecret: true, settings: {} });
    const listed = await svc.call('GET', `${base}/connections`, { headers: bearer(dana) });
    const got = await svc.call('GET', `${base}/connections/${id}`, { headers: bearer(dana) });
    const tested = await svc.call('POST', `${base}/connections/${id}/test`, { headers: bearer(dana) });
    expect(tested.status).toBe(200);
    expect(tested.body.data.ok, tested.body.data.message).toBe(true);
    expect(tested.body.data.message).toMatch(/^Connected to database svc_source_/);
    for (const answer of [created, listed, got, tested]) expect(JSON.stringify(answer.body)).not.toContain(source.password);

    // Every row of every table of the service's database, as text.
    const tables = await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`.execute(
      svc.database.db,
    );
    let scanned = 0;
    for (const { name } of tables.rows) {
      const rows = await sql<{ row: string }>`SELECT t::text AS row FROM ${sql.table(name)} t`.execute(svc.database.db);
      for (const r of rows.rows) {
        scanned++;
        expect(r.row, `table ${name}`).not.toContain(source.password);
        expect(r.row, `table ${name}`).not.toContain(Buffer.from(source.password).toString('hex'));
      }
    }
    expect(scanned).toBeGreaterThan(50);
    const sealed = await svc.database.db
      .selectFrom('data_connections')
      .select(['secret', 'secret_key_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(sealed.secret_key_id).toBe('test');
    expect(sealed.secret!.length).toBeGreaterThan(source.url.length);
    expect(svc.logs.length).toBeGreaterThan(0);
    expect(JSON.stringify(svc.logs)).not.toContain(source.password);
  });

  it('tests a connection that cannot log in as ok: false with the driver’s reason, the password not in it', async () => {
    const wrong = new URL(source.url);
    wrong.password = 'not-the-password';
    const created = await createPostgres('wrong-password', wrong.toString());
    expect(created.status).toBe(201);
    const tested = await svc.call('POST', `${base}/connections/${created.body.data.id}/test`, { headers: bearer(dana) });
    expect(tested.status).toBe(200);
    expect(tested.body.data.ok).toBe(false);
    expect(tested.body.data.message).toMatch(/password authentication failed/);
    expect(JSON.stringify(tested.body)).not.toContain('not-the-password');
  });

  it('refuses a connection string whose host is a parameter (it would pass by the address rule)', async () => {
    const created = await createPostgres('host-param', 'postgres://u:p@example.com/db?host=/var/run/postgresql');
    expect(created.status).toBe(400);
    expect(created.body.error.details.problems[0].path).toBe('connectionString');
    expect(JSON.stringify(created.body)).not.toContain('u:p@');
  });

  it('reaches an HTTPS JSON endpoint with its write-only Authorization value', async () => {
    const created = await svc.call('POST', `${base}/connections`, {
      body: { kind: 'https', name: 'orders-api', url: endpointUrl, authorization: AUTH_HEADER },
      headers: bearer(dana),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ settings: { url: endpointUrl }, hasSecret: true });
    expect(JSON.stringify(created.body)).not.toContain('endpoint-token');
    const tested = await svc.call('POST', `${base}/connections/${created.body.data.id}/test`, { headers: bearer(dana) });
    expect(tested.body.data).toMatchObject({ ok: true, message: 'The endpoint answered JSON (an object).' });
  });

  it('refuses unknown fields with their path, names taken twice, and other companies’ developers', async () => {
    const typo = await svc.call('POST', `${base}/connections`, {
      body: { kind: 'https', name: 'typo', url: endpointUrl, authorisation: 'x' },
      headers: bearer(dana),
    });
    expect(typo.status).toBe(400);
    expect(JSON.stringify(typo.body.error.details)).toContain('authorisation');
    const again = await createPostgres('orders-db', source.url);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('connection_name_exists');
    const userinfo = await svc.call('POST', `${base}/connections`, {
      body: { kind: 'https', name: 'userinfo', url: 'https://user:hunter22@api.example.com/orders' },
      headers: bearer(dana),
    });
    expect(userinfo.status).toBe(400);
    expect(userinfo.body.error.details.problems[0].path).toBe('url');
    expect(JSON.stringify(userinfo.body)).not.toContain('hunter22');
    const other = await svc.call('GET', `${base}/connections`, { headers: bearer(gus) });
    expect(other.status).toBe(403);
    const nul = await svc.call('POST', `${base}/connections`, {
      body: { kind: 'postgresql', name: 'nul', connectionString: 'postgres://a\u0000b@x/y' },
      headers: bearer(dana),
    });
    expect(nul.status).toBe(400);
  });
});

describe('syncs', () => {
  let connectionId: string;
  beforeAll(async () => {
    const listed = await svc.call('GET', `${base}/connections`, { headers: bearer(dana) });
    connectionId = listed.body.data.data.find((c: { name: string }) => c.name === 'orders-db').id;
  });

  const createSync = (body: Record<string, unknown>) =>
    svc.call('POST', `${base}/syncs`, {
      body: { name: 'orders', connectionId, objectType: 'sales.Order', source: { table: 'orders' }, ...body },
      headers: bearer(dana),
    });

  it('checks the mapping against the object type and the source against the connection kind', async () => {
    const noKey = await createSync({ mapping: { amount: 'amount' } });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.message).toBe('Map the primary key number.');
    const unknown = await createSync({ mapping: { number: 'id', colour: 'c' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.problems[0].path).toBe('mapping.colour');
    const filesOnPostgres = await createSync({ mapping: { number: 'id' }, source: { pattern: '*.csv', format: 'csv' } });
    expect(filesOnPostgres.status).toBe(400);
    const noCursor = await createSync({ mapping: { number: 'id' }, mode: 'incremental' });
    expect(noCursor.status).toBe(400);
    expect(noCursor.body.error.details.problems[0].path).toBe('cursorColumn');
  });

  it('creates an incremental sync, lists it, and keeps its connection from being deleted while it exists', async () => {
    const created = await createSync({
      mapping: { number: 'id', amount: 'amount', at: 'placed_at' },
      mode: 'incremental',
      cursorColumn: 'placed_at',
      pageSize: 100,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ mode: 'incremental', cursorColumn: 'placed_at', cursor: null, schedule: null });
    const listed = await svc.call('GET', `${base}/syncs`, { headers: bearer(dana) });
    expect(listed.body.data.data.map((s: { id: string }) => s.id)).toContain(created.body.data.id);
    const inUse = await svc.call('DELETE', `${base}/connections/${connectionId}`, { headers: bearer(dana) });
    expect(inUse.status).toBe(409);
    expect(inUse.body.error).toMatchObject({ code: 'connection_in_use', details: { syncs: ['orders'] } });
  });

  it('queues a build with its Temporal workflow id and an outbox intent; cancels it once', async () => {
    const sync = await svc.call('GET', `${base}/syncs`, { headers: bearer(dana) });
    const syncId = sync.body.data.data[0].id;
    const outbox = () => svc.database.db.selectFrom('outbox').select('topic').where('topic', 'like', 'data-build.%').execute();
    const before = (await outbox()).length;
    const built = await svc.call('POST', '/api/v1/orchestration/builds/cell-acme', { body: { jobs: [{ syncId }] }, headers: bearer(dana) });
    expect(built.status, JSON.stringify(built.body)).toBe(201);
    expect(built.body.data).toMatchObject({
      status: 'QUEUED',
      trigger: 'api',
      workflowId: `data-build:${built.body.data.id}`,
      jobs: [{ position: 0, syncId, syncName: 'orders', status: 'WAITING', rowsRead: 0, dependsOn: [] }],
    });
    expect((await outbox()).length).toBe(before + 1);
    const cycle = await svc.call('POST', '/api/v1/orchestration/builds/cell-acme', {
      body: { jobs: [{ syncId, dependsOn: [syncId] }] },
      headers: bearer(dana),
    });
    expect(cycle.status).toBe(400);
    const cancelled = await svc.call('POST', `/api/v1/orchestration/builds/cell-acme/${built.body.data.id}/cancel`, {
      headers: bearer(dana),
    });
    expect(cancelled.body.data).toMatchObject({ status: 'CANCELLED', jobs: [{ status: 'CANCELLED' }] });
    const again = await svc.call('POST', `/api/v1/orchestration/builds/cell-acme/${built.body.data.id}/cancel`, { headers: bearer(dana) });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('build_finished');
    const listed = await svc.call('GET', '/api/v1/orchestration/builds/cell-acme', { headers: bearer(dana) });
    expect(listed.body.data.data[0].id).toBe(built.body.data.id);
  });
});

describe('platform data source', () => {
  const sync = '/api/v1/ontologies/cell-acme/datasources/platform/sync';
  const intents = () => svc.database.db.selectFrom('outbox').select('payload').where('topic', '=', 'platform-sync.requested').execute();

  it('asks for the company’s run (202, an outbox intent; none on a dry run, none for another company’s developer)', async () => {
    const dry = await svc.call('POST', sync, { headers: { ...bearer(dana), 'x-svc-dry-run': 'true' } });
    expect(dry.status, JSON.stringify(dry.body)).toBe(202);
    expect(await intents()).toHaveLength(0);
    const other = await svc.call('POST', sync, { headers: bearer(gus) });
    expect([other.status, other.body.error.code]).toEqual([403, 'forbidden']);
    const asked = await svc.call('POST', sync, { headers: bearer(dana) });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const company = await svc.database.db.selectFrom('companies').select('id').where('cell_id', '=', 'cell-acme').executeTakeFirstOrThrow();
    expect(asked.body.data).toEqual({
      status: 'REQUESTED',
      workflowId: `platform-sync:${company.id}`,
      objectTypes: ['platform.Member', 'platform.App', 'platform.AppLogDay'],
    });
    expect(await intents()).toEqual([{ payload: { companyId: company.id } }]);
  });

  it('refuses direct edits and definitions of platform.* types with 409 object_type_read_only', async () => {
    const company = await svc.database.db.selectFrom('companies').select('id').where('cell_id', '=', 'cell-acme').executeTakeFirstOrThrow();
    await svc.database.db.transaction().execute((trx) => definePlatformTypes(trx, company.id));
    const edit = await svc.call('POST', '/api/v1/ontologies/cell-acme/edits', {
      body: { edits: [{ type: 'create', objectType: 'platform.App', properties: { appId: 'app_forged', slug: 'forged' } }] },
      headers: bearer(dana),
    });
    expect([edit.status, edit.body.error?.code], JSON.stringify(edit.body)).toEqual([409, 'object_type_read_only']);
    const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', {
      body: { types: [{ apiName: 'platform.Forged', primaryKey: 'id', properties: { id: { dataType: { type: 'string' } } } }] },
      headers: bearer(dana),
    });
    expect([defined.status, defined.body.error?.code]).toEqual([409, 'object_type_read_only']);
  });
});
