import http from 'node:http';
import { startTemporalDevServer } from '@svc/temporal-dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorKey } from '../../support/identity.ts';
import { startBlobBackend, type TestS3 } from '../../support/s3.ts';
import { startTestService, TEST_OPERATOR, type TestService } from '../../support/service.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';

// Liveness (`GET /api/v1/health`: the process answers, nothing else) and readiness
// (`GET /api/v1/health/ready`: each dependency the process uses answers within 2 s). Each
// dependency is reached through a proxy the test cuts, so it is gone for this service only.

const hostPort = (url: string) => {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
};
const ready = (svc: TestService) => svc.call('GET', '/api/v1/health/ready');

describe('the database', () => {
  let proxy: TcpProxy;
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      // The service reaches its database only through the proxy; the test's own connection stays direct.
      databaseUrl: async (url) => {
        proxy = await startTcpProxy(hostPort(url));
        return proxy.route(url);
      },
    });
  }, 60_000);
  afterAll(async () => {
    await proxy?.restore().catch(() => undefined);
    await svc?.close();
    await proxy?.close();
  });

  it('answers ready with each check while everything is up (api role: Temporal and the postgres blob store skipped)', async () => {
    const res = await ready(svc);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      status: 'ready',
      checks: {
        database: { status: 'ok', ms: expect.any(Number) },
        temporal: { status: 'skipped', reason: expect.stringMatching(/api role does not use Temporal/) },
        blobStore: { status: 'skipped', reason: expect.stringMatching(/database check covers them/) },
        shutdown: { status: 'ok', ms: expect.any(Number) },
      },
    });
  });

  it('documents both routes, readiness with its 503', async () => {
    const { paths } = (await svc.call('GET', '/api/v1/openapi.json')).body;
    expect(paths['/api/v1/health'].get.summary).toMatch(/^Liveness/);
    expect(paths['/api/v1/health/ready'].get.summary).toMatch(/^Readiness/);
    expect(paths['/api/v1/health/ready'].get.responses['5XX'].description).toMatch(/service_unavailable/);
  });

  it('health stays 200 / ready 503 with DB down (health answered 200 while every database route failed)', async () => {
    await operatorKey(svc); // the database route works before
    await proxy.cut();
    try {
      const login = await svc.call('POST', '/api/v1/developer/password-tokens', { body: TEST_OPERATOR });
      expect(login.status).toBeGreaterThanOrEqual(500);

      const health = await svc.call('GET', '/api/v1/health');
      expect(health.status).toBe(200);
      expect(health.body.data).toMatchObject({ status: 'ok', instanceId: expect.any(String) });

      const res = await ready(svc);
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body.error).toMatchObject({
        code: 'service_unavailable',
        message: 'Not ready: database.',
        details: {
          failing: ['database'],
          checks: { database: { status: 'failed', reason: expect.any(String) }, temporal: { status: 'skipped' } },
        },
      });
      // The reason says what, never where: the route needs no credential.
      expect(JSON.stringify(res.body)).not.toContain(String(proxy.port));
    } finally {
      await proxy.restore();
    }
    await expect.poll(async () => (await ready(svc)).status, { timeout: 20_000 }).toBe(200);
    await operatorKey(svc);
  });
});

/**
 * A GET on a connection of its own, as a balancer opens one: what a closed listener refuses
 * (`call` may reuse a kept-alive connection, which the drain still answers).
 */
const newConnectionGet = (svc: TestService, path: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(`${svc.url}${path}`, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
      .on('error', reject);
  });

describe('shutdown (SIGTERM/SIGINT)', () => {
  it('fails readiness at once, keeps serving for SVC_SHUTDOWN_DELAY_MS, then stops listening', async () => {
    const svc = await startTestService({ env: { SVC_SHUTDOWN_DELAY_MS: '1500' } });
    expect((await ready(svc)).status).toBe(200);
    let closed = false;
    const signalled = performance.now();
    const closing = svc.close().then(() => {
      closed = true;
    });
    const res = await ready(svc);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error).toMatchObject({
      code: 'service_unavailable',
      message: 'Not ready: shutdown.',
      details: { failing: ['shutdown'], checks: { database: { status: 'ok' }, shutdown: { status: 'failed', reason: 'shutting down' } } },
    });
    // Still serving while a balancer takes it out of rotation: half the delay on, and more.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, signalled + 750 - performance.now())));
    expect(await newConnectionGet(svc, '/api/v1/health')).toBe(200);
    expect(closed).toBe(false);
    await closing;
    await expect(newConnectionGet(svc, '/api/v1/health')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    // Not a failure worth a warning: nothing is wrong with a dependency.
    expect(svc.logs.filter((l) => l.msg === 'readiness check failed')).toEqual([]);
  });
});

describe('the S3 blob store', () => {
  let s3: TestS3;
  let proxy: TcpProxy;
  let svc: TestService;
  beforeAll(async () => {
    s3 = (await startBlobBackend('s3'))!;
    proxy = await startTcpProxy(hostPort(s3.endpoint));
    const endpoint = `http://127.0.0.1:${proxy.port}`;
    svc = await startTestService({ env: { ...s3.env('ready'), SVC_BLOB_STORE_ENDPOINT: endpoint } });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await proxy?.close();
    await s3?.close();
  });

  it('is checked with HeadBucket: ready while s3rver answers, 503 naming blobStore when it does not', async () => {
    const up = await ready(svc);
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.data.checks.blobStore).toEqual({ status: 'ok', ms: expect.any(Number) });

    await proxy.cut();
    try {
      const down = await ready(svc);
      expect(down.status, JSON.stringify(down.body)).toBe(503);
      expect(down.body.error.details).toMatchObject({
        failing: ['blobStore'],
        checks: { database: { status: 'ok' }, blobStore: { status: 'failed' } },
      });
      expect((await svc.call('GET', '/api/v1/health')).status).toBe(200);
    } finally {
      await proxy.restore();
    }
    await expect.poll(async () => (await ready(svc)).status, { timeout: 20_000 }).toBe(200);
  });
});

describe('Temporal (role all)', () => {
  let server: Awaited<ReturnType<typeof startTemporalDevServer>>;
  let proxy: TcpProxy;
  let svc: TestService;
  beforeAll(async () => {
    server = await startTemporalDevServer();
    proxy = await startTcpProxy(hostPort(`grpc://${server.address}`));
    svc = await startTestService({ role: 'all', env: { TEMPORAL_ADDRESS: `127.0.0.1:${proxy.port}` } });
  }, 120_000);
  afterAll(async () => {
    await svc?.close();
    await proxy?.close();
    await server?.stop();
  });

  it('is checked with DescribeNamespace: ready while it answers, 503 naming temporal when it does not', async () => {
    const up = await ready(svc);
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.data.checks).toMatchObject({ database: { status: 'ok' }, temporal: { status: 'ok' }, blobStore: { status: 'skipped' } });

    await proxy.cut();
    try {
      const down = await ready(svc);
      expect(down.status, JSON.stringify(down.body)).toBe(503);
      expect(down.body.error.details).toMatchObject({ failing: ['temporal'], checks: { temporal: { status: 'failed' } } });
      expect((await svc.call('GET', '/api/v1/health')).status).toBe(200);
    } finally {
      await proxy.restore();
    }
    await expect.poll(async () => (await ready(svc)).status, { timeout: 30_000 }).toBe(200);
  });
});
