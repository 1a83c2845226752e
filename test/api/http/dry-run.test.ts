import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotService } from '../../support/db-snapshot.ts';
import { createNotesTable, fixtureRoutes } from '../../support/fixture-routes.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
const effects: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ extraRoutes: fixtureRoutes(effects) });
  await createNotesTable(svc.database.db);
});
afterAll(() => svc.close());

describe('x-svc-dry-run', () => {
  it('answers 202 with the plan and changes nothing: no row, no side effect', async () => {
    await svc.call('POST', '/api/v1/test/notes/existing', { body: { title: 'kept' } });
    effects.length = 0;
    const before = await snapshotService(svc);

    const res = await svc.call('POST', '/api/v1/test/notes/planned', { body: { title: 'draft' }, headers: { 'x-svc-dry-run': 'true' } });

    expect(res.status).toBe(202);
    expect(res.body.ok).toBe(true);
    expect(res.body.data).toEqual({ dryRun: true, plan: { wouldCreate: 'planned' } });
    expect(await snapshotService(svc)).toEqual(before);
    expect(effects).toEqual([]);
  });

  it('validates exactly like the real request', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/planned', {
      body: { title: 'draft', bogus: 1 },
      headers: { 'x-svc-dry-run': 'TRUE' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.problems).toEqual([{ path: 'bogus', code: 'unrecognized_keys', message: 'Unknown key "bogus"' }]);
  });

  it('reports the conflict a real write would hit', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/existing', { body: { title: 'again' }, headers: { 'x-svc-dry-run': 'true' } });
    expect(res.status).toBe(409);
  });

  it('without the header (or with false) the write happens and its side effect runs after commit', async () => {
    effects.length = 0;
    const res = await svc.call('POST', '/api/v1/test/notes/real', { body: { title: 'done' }, headers: { 'x-svc-dry-run': 'false' } });
    expect(res.status).toBe(201);
    const rows = await sql<{ id: string }>`SELECT id FROM test_notes WHERE id = 'real'`.execute(svc.database.db);
    expect(rows.rows).toHaveLength(1);
    expect(effects).toEqual(['created real']);
  });

  it('reads a body of about 4 MB (a 3 MB bundle in base64) under the default upload limit', async () => {
    const pad = 'A'.repeat(Math.ceil((3 * 1024 * 1024) / 3) * 4);
    const res = await svc.call('POST', '/api/v1/test/notes/bigone', { body: { title: 'x', pad } });
    // Read and parsed (not 413); the strict schema then names the unknown field.
    expect(res.status).toBe(400);
    expect(res.body.error.details.problems).toEqual([{ path: 'pad', code: 'unrecognized_keys', message: 'Unknown key "pad"' }]);
  });
});

describe('transactions', () => {
  it('run snapshot reads in one read-only REPEATABLE READ transaction', async () => {
    const res = await svc.call('GET', '/api/v1/test/snapshot');
    expect(res.body.data).toEqual({ isolation: 'repeatable read', readOnly: 'on' });
  });

  it('retries a serialization failure and succeeds', async () => {
    const retried: string[] = [];
    const local = await startTestService({ extraRoutes: fixtureRoutes(retried, { failures: { code: '40001', times: 2 } }) });
    try {
      await createNotesTable(local.database.db);
      const res = await local.call('POST', '/api/v1/test/notes/retry', { body: { title: 'x' } });
      expect(res.status).toBe(201);
      expect(retried).toEqual(['created retry']);
    } finally {
      await local.close();
    }
  });

  it('gives up after three attempts with 503 service_unavailable and Retry-After', async () => {
    const local = await startTestService({ extraRoutes: fixtureRoutes([], { failures: { code: '40P01', times: 3 } }) });
    try {
      await createNotesTable(local.database.db);
      const res = await local.call('POST', '/api/v1/test/notes/retry', { body: { title: 'x' } });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('service_unavailable');
      expect(res.headers.get('retry-after')).toBe('1');
      const rows = await sql`SELECT 1 FROM test_notes`.execute(local.database.db);
      expect(rows.rows).toHaveLength(0);
    } finally {
      await local.close();
    }
  });
});
