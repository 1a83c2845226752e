import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../api/app.ts';
import { buildOpenApiDocument, errorTable } from '../../../api/http/openapi.ts';
import { routes } from '../../../api/routes.ts';
import versionFile from '../../../version.json' with { type: 'json' };
import { fixtureRoutes } from '../../support/fixture-routes.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** `METHOD /path/{param}` for every operation of a document. */
function documentedOperations(doc: { paths?: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((k) => METHODS.includes(k))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

/**
 * `METHOD /path/{param}` for every route the Koa router really mounted (HEAD is implied by GET;
 * OPTIONS is the CORS preflight of the routes that take app tickets).
 */
function mountedOperations(routeList: typeof routes): string[] {
  const app = createApp(svc.deps, routeList);
  // The API routes are split over several routers (one per group of paths); a route may sit in several.
  const { routers } = (app.middleware as { routers?: { stack: { path: string; methods: string[] }[] }[] }[]).find((m) => m.routers)!;
  const operations = routers!.flatMap((router) =>
    router.stack.flatMap((layer) =>
      layer.methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').map((m) => `${m} ${layer.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`),
    ),
  );
  return [...new Set(operations)];
}

describe('GET /api/v1/openapi.json', () => {
  it('is an OpenAPI 3.1.0 document titled Developer API at the version of version.json', async () => {
    const res = await svc.call('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info).toMatchObject({ title: 'Developer API', version: '1.53.0' });
    expect(res.body.info.version).toBe(versionFile.version);
    // The error table: every code with its one HTTP status.
    expect(res.body.info.description).toContain(errorTable());
    expect(res.body.servers).toEqual([{ url: svc.addresses.baseUrl }]);
    expect(res.body.components.schemas.ApiFailure.properties.error.properties.code.enum).toContain('invalid_payload');
    expect(res.body.components.schemas.ApiSuccess.properties).toMatchObject({
      ok: { type: 'boolean', const: true },
      requestId: { type: 'string' },
    });
  });

  it('documents every mounted route and mounts every documented operation', async () => {
    const res = await svc.call('GET', '/api/v1/openapi.json');
    const documented = documentedOperations(res.body).sort();
    const mounted = mountedOperations(routes).sort();
    expect(mounted.length).toBeGreaterThan(0);
    expect(documented).toEqual(mounted);
  });

  it('describes parameters, bodies, dry-run and failures from the same zod schemas', () => {
    const doc = buildOpenApiDocument([...routes, ...fixtureRoutes([])]) as any;
    const op = doc.paths['/api/v1/test/notes/{noteId}'].post;
    expect(op.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'path', name: 'noteId', required: true }),
        expect.objectContaining({ in: 'header', name: 'x-svc-dry-run' }),
      ]),
    );
    const body = op.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.title).toMatchObject({ type: 'string', minLength: 1, maxLength: 20 });
    expect(Object.keys(op.responses).sort()).toEqual(['201', '202', '4XX', '5XX']);
    expect(op.responses['4XX'].description).toContain('invalid_payload');
  });

  it('marks deprecated operations and names the new path in the summary', async () => {
    const doc = buildOpenApiDocument(fixtureRoutes([])) as any;
    const op = doc.paths['/api/v1/test/old/{name}'].get;
    expect(op.deprecated).toBe(true);
    expect(op.summary).toContain('/api/v1/test/new/{name}');
    expect(doc.paths['/api/v1/test/slow'].get.deprecated).toBeUndefined();
  });
});

describe('deprecated routes', () => {
  it('answer with Deprecation and a Link to the successor', async () => {
    const local = await startTestService({ extraRoutes: fixtureRoutes([]) });
    try {
      const res = await local.call('GET', '/api/v1/test/old/a%20b');
      expect(res.status).toBe(200);
      expect(res.headers.get('deprecation')).toBe(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
      expect(res.headers.get('link')).toBe('</api/v1/test/new/a%20b>; rel="successor-version"');
    } finally {
      await local.close();
    }
  });
});

describe('security in the document', () => {
  it('names the credential each operation accepts', async () => {
    const doc = (await svc.call('GET', '/api/v1/openapi.json')).body;
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['appTicket', 'developerKey', 'webSession']);
    expect(doc.paths['/api/v1/developer/me'].get.security).toEqual([{ developerKey: [] }]);
    expect(doc.paths['/api/v1/developer/keys'].get.security).toEqual([{ developerKey: [] }, { webSession: [] }]);
    expect(doc.paths['/api/v1/developer/password-tokens'].post.security).toEqual([]);
    expect(doc.paths['/api/v1/developer/apps/{namespace}/{slug}/tickets'].post.security).toEqual([{ appTicket: [] }]);
  });
});
