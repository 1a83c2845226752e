import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotesTable, fixtureRoutes } from './support/fixture-routes.ts';
import { startTestService, type TestService } from './support/service.ts';

describe('graceful shutdown', () => {
  it('finishes in-flight requests, then refuses new connections and closes the database', async () => {
    const svc = await startTestService({ extraRoutes: fixtureRoutes([]) });
    const inFlight = fetch(`${svc.url}/api/v1/test/slow?ms=600`);
    await new Promise((r) => setTimeout(r, 150));
    const stopping = svc.stop();

    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data).toEqual({ waited: 600 });
    await stopping;
    await expect(fetch(`${svc.url}/api/v1/health`)).rejects.toThrow();
    await expect(svc.deps.db.selectFrom('service_instance').selectAll().execute()).rejects.toThrow();
    await svc.database.drop();
  });
});

describe('request logs', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ extraRoutes: fixtureRoutes([]) });
    await createNotesTable(svc.database.db);
  });
  afterAll(() => svc.close());

  it('log request id, method, route, status and duration, and never bodies or credentials', async () => {
    const res = await svc.call('POST', '/api/v1/test/notes/logged?token=query-secret', {
      body: { title: 'body-secret-value' },
      headers: { authorization: 'Bearer svc-dk-header-secret', cookie: 'sid=cookie-secret' },
    });
    expect(res.status).toBe(201);
    const line = svc.logs.find((l) => l.requestId === res.headers.get('x-request-id'));
    expect(line).toMatchObject({ msg: 'request', method: 'POST', route: '/api/v1/test/notes/{noteId}', status: 201 });
    expect(typeof line!.durationMs).toBe('number');
    const all = JSON.stringify(svc.logs);
    for (const secret of ['body-secret-value', 'svc-dk-header-secret', 'cookie-secret', 'query-secret']) expect(all).not.toContain(secret);
  });

  it('log failures with their status too', async () => {
    const res = await svc.call('GET', '/api/v1/missing');
    const line = svc.logs.find((l) => l.requestId === res.headers.get('x-request-id'));
    expect(line).toMatchObject({ method: 'GET', route: null, status: 404 });
  });
});
