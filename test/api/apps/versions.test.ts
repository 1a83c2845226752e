import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundle } from '../../support/bundles.ts';
import { snapshotDatabase } from '../../support/db-snapshot.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let dev: string;
let member: string;
let other: string;
let op: string;

beforeAll(async () => {
  svc = await startTestService();
  ({ op } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
  member = await passwordKey(svc, 'mo');
  other = await passwordKey(svc, 'gus');
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const upload = (key: string, ns: string, slug: string, body: unknown, headers: Record<string, string> = {}) =>
  svc.call('POST', `/api/v1/developer/apps/${ns}/${slug}/versions`, { body, headers: { ...bearer(key), ...headers } });

describe('POST /api/v1/developer/apps/{namespace}/{slug}/versions', () => {
  it('creates the app with its first version (201), build #1, untested', async () => {
    const res = await upload(dev, 'cell-acme', 'hello', bundle('hello', '1.0.0'));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      app: { namespace: 'cell-acme', slug: 'hello' },
      version: '1.0.0',
      build: 1,
      buildLabel: '#1',
      created: true,
    });
    expect(res.body.data.digest).toMatch(/^[0-9a-f]{64}$/);
    const app = await svc.call('GET', '/api/v1/developer/apps/cell-acme/hello', { headers: bearer(dev) });
    expect(app.body.data.versions).toMatchObject([{ version: '1.0.0', build: 1, status: 'untested', tested: false, fileCount: 2 }]);
    expect(app.body.data.channels).toEqual({ test: null, production: null });
  });

  it('answers an identical re-upload with 200 and the existing version', async () => {
    const again = await upload(dev, 'cell-acme', 'hello', bundle('hello', '1.0.0'));
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ version: '1.0.0', build: 1, created: false });
  });

  it('refuses changed content under a used version number with 409 version_conflict', async () => {
    const changed = bundle('hello', '1.0.0', { manifest: { summary: 'different' } });
    const res = await upload(dev, 'cell-acme', 'hello', changed);
    expect([res.status, res.body.error.code]).toEqual([409, 'version_conflict']);
    expect(res.body.error.details).toMatchObject({ version: '1.0.0', build: 1 });
  });

  it('numbers builds per app and stores identical file content once across versions and apps', async () => {
    const blobsBefore = await sql<{ n: number }>`SELECT count(*)::int AS n FROM blobs`.execute(svc.database.db);
    const second = await upload(dev, 'cell-acme', 'hello', bundle('hello', '1.1.0'));
    expect(second.body.data.build).toBe(2);
    const otherApp = await upload(dev, 'cell-acme', 'world', bundle('world', '1.0.0'));
    expect(otherApp.body.data.build).toBe(1);
    const blobsAfter = await sql<{ n: number }>`SELECT count(*)::int AS n FROM blobs`.execute(svc.database.db);
    // New: the two index.html files; app.js is shared with the first upload.
    expect(blobsAfter.rows[0]!.n - blobsBefore.rows[0]!.n).toBe(2);
  });

  it('makes exactly one version of concurrent identical uploads', async () => {
    const body = bundle('racer', '1.0.0');
    const results = await Promise.all(Array.from({ length: 6 }, () => upload(dev, 'cell-acme', 'racer', body)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    const rows = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM app_versions v JOIN apps a ON a.id = v.app_id WHERE a.slug = 'racer'`.execute(svc.database.db);
    expect(rows.rows[0]!.n).toBe(1);
  });

  it('answers a dry run with 202 and a plan, changing nothing', async () => {
    const before = await snapshotDatabase(svc.database.db);
    const res = await upload(dev, 'cell-acme', 'dry', bundle('dry', '1.0.0'), { 'x-svc-dry-run': 'true' });
    expect(res.status).toBe(202);
    expect(res.body.data.plan).toMatchObject({ version: '1.0.0', build: 1, created: true });
    const { ['table:developer_keys']: _a, ...b } = before;
    const { ['table:developer_keys']: _b, ...a } = await snapshotDatabase(svc.database.db);
    expect(a).toEqual(b);
  });

  it('refuses an invalid bundle with bundle_invalid listing every problem, and keeps nothing', async () => {
    const res = await upload(dev, 'cell-acme', 'broken', {
      manifest: { manifestVersion: 1, slug: 'other-slug', version: 'one', title: 'Broken', colour: 'red' },
      files: [
        { path: '../escape.html', encoding: 'utf8', content: 'x' },
        { path: 'developer/sdk/v1/semantic.js', encoding: 'utf8', content: 'x' },
      ],
    });
    expect([res.status, res.body.error.code]).toEqual([422, 'bundle_invalid']);
    const paths = res.body.error.details.problems.map((p: { path: string }) => p.path);
    for (const p of ['manifest.version', 'manifest.colour', 'manifest.slug', 'files[0].path', 'files[1].path']) expect(paths).toContain(p);
    expect((await svc.call('GET', '/api/v1/developer/apps/cell-acme/broken', { headers: bearer(dev) })).status).toBe(404);
  });

  it('rejects a body of the wrong shape with invalid_payload and a bad address with invalid_path', async () => {
    const shape = await upload(dev, 'cell-acme', 'hello', {
      manifest: {},
      files: [{ path: 'a.html', encoding: 'gzip', content: '' }],
      extra: 1,
    });
    expect(shape.body.error.code).toBe('invalid_payload');
    expect(shape.body.error.details.problems.map((p: { path: string }) => p.path).sort()).toEqual(['extra', 'files[0].encoding']);
    const path = await upload(dev, 'acme', 'Hello', bundle('hello', '1.0.0'));
    expect([path.status, path.body.error.code]).toEqual([400, 'invalid_path']);
  });
});

describe('namespace rules', () => {
  it('members cannot write; other companies are forbidden; public is for platform staff', async () => {
    const asMember = await upload(member, 'cell-acme', 'hello', bundle('hello', '9.0.0'));
    expect([asMember.status, asMember.body.error.code]).toEqual([403, 'forbidden']);
    const otherCompany = await upload(other, 'cell-acme', 'hello', bundle('hello', '9.0.0'));
    expect([otherCompany.status, otherCompany.body.error.code]).toEqual([403, 'forbidden']);
    const publicByDeveloper = await upload(dev, 'public', 'hello', bundle('hello', '1.0.0'));
    expect([publicByDeveloper.status, publicByDeveloper.body.error.code]).toEqual([403, 'forbidden']);
    const publicByOperator = await upload(op, 'public', 'official', bundle('official', '1.0.0'));
    expect(publicByOperator.status).toBe(201);
  });

  it('lists the key’s company apps, plus public for platform keys; reads follow the same rule', async () => {
    const mine = await svc.call('GET', '/api/v1/developer/apps', { headers: bearer(dev) });
    const slugs = mine.body.data.apps.map((a: { namespace: string; slug: string }) => `${a.namespace}/${a.slug}`);
    expect(slugs).toEqual(expect.arrayContaining(['cell-acme/hello', 'cell-acme/world']));
    expect(slugs.some((s: string) => s.startsWith('public/'))).toBe(false);
    const ops = await svc.call('GET', '/api/v1/developer/apps', { headers: bearer(op) });
    expect(ops.body.data.apps.map((a: { namespace: string }) => a.namespace)).toContain('public');

    expect((await svc.call('GET', '/api/v1/developer/apps/cell-acme/hello', { headers: bearer(member) })).status).toBe(200);
    const cross = await svc.call('GET', '/api/v1/developer/apps/cell-acme/hello', { headers: bearer(other) });
    expect([cross.status, cross.body.error.code]).toEqual([403, 'forbidden']);
    const missing = await svc.call('GET', '/api/v1/developer/apps/cell-acme/nope', { headers: bearer(dev) });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'app_not_found']);

    const registry = await svc.call('GET', '/api/v1/developer/registry', { headers: bearer(dev) });
    expect(registry.body.data.rows.find((r: { slug: string }) => r.slug === 'hello')).toMatchObject({
      title: 'App hello',
      latestBuild: 2,
      category: 'general',
    });
  });
});

describe('manifest JSON Schema', () => {
  it('is served without login at the stable URL that $schema names', async () => {
    const res = await svc.call('GET', '/schemas/manifest/v1.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `${svc.addresses.baseUrl}/schemas/manifest/v1.json`,
      type: 'object',
    });
    expect(res.body.properties.slug.pattern).toBe('^[a-z][a-z0-9-]{1,47}$');
    expect(res.body.additionalProperties).toBe(false);
  });

  it('accepts a manifest that names it in $schema (and $schema does not change the digest)', async () => {
    const plain = await upload(dev, 'cell-acme', 'schemed', bundle('schemed', '1.0.0'));
    const withSchema = await upload(
      dev,
      'cell-acme',
      'schemed',
      bundle('schemed', '1.0.0', { manifest: { $schema: `${svc.addresses.baseUrl}/schemas/manifest/v1.json`, namespace: 'cell-acme' } }),
    );
    expect(withSchema.status).toBe(200);
    expect(withSchema.body.data.digest).toBe(plain.body.data.digest);
  });
});

describe('content-addressed store', () => {
  it('verifies blobs on read', async () => {
    const { readBlob, CorruptBlobError } = await import('../../../domain/apps/blob-store.ts');
    const row = await sql<{ sha256: Buffer }>`SELECT sha256 FROM blobs LIMIT 1`.execute(svc.database.db);
    const sha = row.rows[0]!.sha256;
    expect((await readBlob(svc.database.db, sha)).length).toBeGreaterThan(0);
    await sql`UPDATE blobs SET content = 'tampered'::bytea WHERE sha256 = ${sha}`.execute(svc.database.db);
    await expect(readBlob(svc.database.db, sha)).rejects.toBeInstanceOf(CorruptBlobError);
  });
});

describe('credentials on the app routes', () => {
  it.each([
    ['GET', '/api/v1/developer/apps'],
    ['GET', '/api/v1/developer/registry'],
    ['GET', '/api/v1/developer/apps/cell-acme/hello'],
    ['POST', '/api/v1/developer/apps/cell-acme/hello/versions'],
    ['POST', '/api/v1/developer/apps/cell-acme/hello/channels/test'],
  ])('%s %s needs a key (401), and a browser session is no key', async (method, path) => {
    const none = await svc.call(method, path, { body: method === 'POST' ? {} : undefined });
    expect([none.status, none.body.error.code]).toEqual([401, 'unauthorized']);
    const revoked = await svc.call(method, path, { headers: { cookie: 'svc_session=whatever' } });
    expect(revoked.status).toBe(401);
  });
});
