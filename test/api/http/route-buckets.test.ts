import type { AddressInfo } from 'node:net';
import Router, { type RouterMiddleware } from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiDeps } from '../../../api/deps.ts';
import { mountRoutes } from '../../../api/http/mount-routes.ts';
import { type AnyRoute, defineRoute, routerPath } from '../../../api/http/route.ts';

// mountRoutes splits the routes over one router per group of paths. Whatever the path, the answer
// must be the one a single router holding every route in its declared order would give.

const PATHS = [
  '/api/v1/{kind}/b', // a parameter inside the first four segments, declared before a literal it overlaps
  '/api/v1/a/b',
  '/api/v1/a/b/{id}',
  '/api/v1/a/c',
  '/api/v1/h',
  '/api/v1/a/{x}/d',
  '/api/v1/z/b/c/d',
  '/x',
];
const METHODS = ['get', 'post', 'delete'] as const;
const routes: AnyRoute[] = PATHS.flatMap((path, i) =>
  METHODS.slice(0, 1 + (i % 3)).map((method) =>
    defineRoute({
      method,
      path,
      operationId: `${method} ${path}`,
      summary: 'test',
      tags: ['test'],
      auth: 'none',
      response: { status: 200, description: 'test', schema: z.string() },
      handler: async () => ({ data: `${method} ${path}` }),
    }),
  ),
);
const deps = { http: { trustedProxies: [], maxBodyBytes: 1024 }, logger: pino({ level: 'silent' }) } as unknown as ApiDeps;

async function listen(app: Pick<Koa, 'listen'>) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(r)) };
}

let bucketed: Awaited<ReturnType<typeof listen>>;
let single: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  bucketed = await listen(new Koa().use(mountRoutes(routes, deps)));
  // The reference: every route in one router, as @koa/router is normally used.
  const mounted = mountRoutes(routes, deps);
  const router = new Router();
  for (const route of routes) {
    const layer = mounted.routers
      .flatMap((r) => r.stack)
      .find((l) => l.path === routerPath(route.path) && l.methods.includes(route.method.toUpperCase()))!;
    router[route.method](routerPath(route.path), ...(layer.stack as RouterMiddleware[]));
  }
  single = await listen(new Koa().use(router.routes()).use(router.allowedMethods()));
});
afterAll(async () => {
  await bucketed?.close();
  await single?.close();
});

async function answer(base: string, method: string, path: string) {
  const res = await fetch(`${base}${path}`, { method });
  return { status: res.status, allow: res.headers.get('allow'), body: await res.text() };
}

describe('routes split by path', () => {
  it('answers the route declared first when a parameter route overlaps a literal one', async () => {
    expect((await answer(bucketed.url, 'GET', '/api/v1/a/b')).body).toContain('get /api/v1/{kind}/b');
  });

  it('answers 405 with Allow from the group that holds the path', async () => {
    expect(await answer(bucketed.url, 'PUT', '/api/v1/a/b/7')).toMatchObject({ status: 405, allow: 'HEAD, GET, POST, DELETE' });
  });

  it('answers every path and method as one router holding every route would', async () => {
    const segment = fc.constantFrom('api', 'API', 'v1', 'a', 'b', 'c', 'd', 'h', 'z', 'x', '', 'q');
    // Paths near the routes' own: a route path with its parameters filled, then perhaps one
    // segment changed, one added, and the case changed.
    const nearRoute = fc
      .tuple(
        fc.constantFrom(...PATHS),
        fc.array(segment, { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 1, max: 7 }),
        fc.option(segment),
        fc.boolean(),
      )
      .map(([template, fill, changeAt, extra, upper]) => {
        const parts = template.split('/').map((part, i) => (part.startsWith('{') || i === changeAt ? fill[i % 6]! : part));
        const path = [...parts, ...(extra === null ? [] : [extra])].join('/');
        return upper ? path.toUpperCase() : path;
      });
    const anyPath = fc.array(segment, { minLength: 1, maxLength: 6 }).map((segments) => `/${segments.join('/')}`);
    await fc.assert(
      fc.asyncProperty(fc.oneof(nearRoute, anyPath), fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'), async (path, method) => {
        expect(await answer(bucketed.url, method, path)).toEqual(await answer(single.url, method, path));
      }),
      { numRuns: 300 },
    );
  });

  it('reaches routes with a parameter in the first four segments, short routes and trailing slashes', async () => {
    for (const [path, body] of [
      ['/api/v1/q/b', 'get /api/v1/{kind}/b'],
      ['/api/v1/h/', 'get /api/v1/h'],
      ['/API/V1/A/B/7', 'get /api/v1/a/b/{id}'],
      ['/api/v1/a/q/d', 'get /api/v1/a/{x}/d'],
      ['/x', 'get /x'],
    ]) {
      expect(await answer(bucketed.url, 'GET', path!)).toMatchObject({ status: 200, body: expect.stringContaining(body!) });
    }
  });
});
