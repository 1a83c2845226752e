import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CorruptBlobError } from '../../../domain/apps/blob-store.ts';
import { WorkerPool } from '../../../domain/threads/worker-pool.ts';
import { bundle } from '../../support/bundles.ts';
import { snapshotService } from '../../support/db-snapshot.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startBlobBackend, type TestS3 } from '../../support/s3.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let dev: string;
let member: string;
let other: string;
let op: string;
let s3: TestS3 | undefined;

// Every upload test runs once per blob store backend: the embedded PostgreSQL table and S3 (a
// loopback S3 server, reached through the standard AWS chain like in production).
describe.each(['postgres', 's3'] as const)('with the %s blob store', (backend) => {
  beforeAll(async () => {
    s3 = await startBlobBackend(backend);
    svc = await startTestService({ env: s3?.env('versions') ?? {} });
    ({ op } = await seedCompanies(svc));
    dev = await passwordKey(svc, 'dana');
    member = await passwordKey(svc, 'mo');
    other = await passwordKey(svc, 'gus');
  });
  afterAll(async () => {
    await svc.close();
    await s3?.close();
    vi.unstubAllEnvs();
  });
  beforeEach(() => resetRateLimits(svc));

  const upload = (key: string, ns: string, slug: string, body: unknown, headers: Record<string, string> = {}) =>
    svc.call('POST', `/api/v1/developer/apps/${ns}/${slug}/versions`, { body, headers: { ...bearer(key), ...headers } });

  /** Blobs written so far: rows of the blobs table, or objects the S3 server was sent. */
  const blobsWritten = async () =>
    s3 ? s3.puts.length : (await sql<{ n: number }>`SELECT count(*)::int AS n FROM blobs`.execute(svc.database.db)).rows[0]!.n;

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

    it('answers an identical re-upload with 200 and the existing version, without sending its files to the store again', async () => {
      const put = vi.spyOn(svc.deps.blobs, 'put');
      try {
        const again = await upload(dev, 'cell-acme', 'hello', bundle('hello', '1.0.0'));
        expect(again.status).toBe(200);
        expect(again.body.data).toMatchObject({ version: '1.0.0', build: 1, created: false });
        expect(put).not.toHaveBeenCalled();
      } finally {
        put.mockRestore();
      }
    });

    // An identical re-upload is recognised by its digest before validation; anything short of
    // the very same manifest and bytes, strictly decoded, is validated as usual.
    describe('an identical re-upload, recognised before validation', () => {
      const page = { path: 'index.html', encoding: 'utf8' as const, content: '<!doctype html><title>b64</title>' };
      // "Zg==" is the canonical base64 of "f"; "Zh==" decodes to the same byte with non-zero padding bits.
      const withAsset = (content: string) => bundle('b64', '1.0.0', { files: [page, { path: 'a.png', encoding: 'base64', content }] });

      it('is answered from the stored version (same digest, warnings and skills) without the validation thread', async () => {
        const first = await upload(dev, 'cell-acme', 'b64', withAsset('Zg=='));
        expect(first.status).toBe(201);
        const run = vi.spyOn(WorkerPool.prototype, 'run');
        try {
          const again = await upload(dev, 'cell-acme', 'b64', withAsset('Zg=='));
          expect(again.status).toBe(200);
          expect(again.body.data).toEqual({ ...first.body.data, created: false });
          expect(run).not.toHaveBeenCalled();
        } finally {
          run.mockRestore();
        }
      });

      it('still refuses non-canonical base64 that decodes to the stored bytes', async () => {
        const res = await upload(dev, 'cell-acme', 'b64', withAsset('Zh=='));
        expect([res.status, res.body.error.code]).toEqual([422, 'bundle_invalid']);
        expect(res.body.error.details.problems).toEqual([
          expect.objectContaining({ path: 'files[1].content', code: 'content_invalid_base64' }),
        ]);
      });

      it('still refuses a manifest naming another namespace (the digest leaves the namespace out)', async () => {
        const res = await upload(dev, 'cell-acme', 'b64', {
          ...withAsset('Zg=='),
          manifest: { ...withAsset('Zg==').manifest, namespace: 'cell-other' },
        });
        expect([res.status, res.body.error.code]).toEqual([422, 'bundle_invalid']);
        expect(res.body.error.details.problems).toEqual([
          expect.objectContaining({ path: 'manifest.namespace', code: 'namespace_mismatch' }),
        ]);
      });
    });

    it('refuses changed content under a used version number with 409 version_conflict', async () => {
      const changed = bundle('hello', '1.0.0', { manifest: { summary: 'different' } });
      const res = await upload(dev, 'cell-acme', 'hello', changed);
      expect([res.status, res.body.error.code]).toEqual([409, 'version_conflict']);
      expect(res.body.error.details).toMatchObject({ version: '1.0.0', build: 1 });
    });

    it('numbers builds per app and stores identical file content once across versions and apps', async () => {
      const blobsBefore = await blobsWritten();
      const second = await upload(dev, 'cell-acme', 'hello', bundle('hello', '1.1.0'));
      expect(second.body.data.build).toBe(2);
      const otherApp = await upload(dev, 'cell-acme', 'world', bundle('world', '1.0.0'));
      expect(otherApp.body.data.build).toBe(1);
      // New: the two index.html files; app.js is shared with the first upload.
      expect((await blobsWritten()) - blobsBefore).toBe(2);
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
      const before = await snapshotService(svc);
      const blobsBefore = await blobsWritten();
      const res = await upload(dev, 'cell-acme', 'dry', bundle('dry', '1.0.0'), { 'x-svc-dry-run': 'true' });
      expect(res.status).toBe(202);
      expect(res.body.data.plan).toMatchObject({ version: '1.0.0', build: 1, created: true });
      const { ['table:developer_keys']: _a, ...b } = before;
      const { ['table:developer_keys']: _b, ...a } = await snapshotService(svc);
      expect(a).toEqual(b);
      expect(await blobsWritten()).toBe(blobsBefore);
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
      for (const p of ['manifest.version', 'manifest.colour', 'manifest.slug', 'files[0].path', 'files[1].path'])
        expect(paths).toContain(p);
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
      expect(mine.body.data.apps.find((a: { slug: string }) => a.slug === 'hello').addresses).toEqual({
        test: `${svc.addresses.developerBase}/cell-acme/apps/hello`,
        production: `${svc.addresses.productionBase}/cell-acme/apps/hello`,
      });
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
    const filesOf = (slug: string, version: string) =>
      svc.database.db
        .selectFrom('version_files as f')
        .innerJoin('app_versions as v', 'v.id', 'f.version_id')
        .innerJoin('apps as a', 'a.id', 'v.app_id')
        .select(['f.path', sql<string>`encode(f.blob_sha256, 'hex')`.as('sha256')])
        .where('a.slug', '=', slug)
        .where('v.version', '=', version)
        .execute();
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

    it('holds every file of a version under its hash, in the configured backend only', async () => {
      const uploaded = bundle('hello', '1.0.0').files;
      const files = await filesOf('hello', '1.0.0');
      expect(files.map((f) => f.path).sort()).toEqual(['app.js', 'index.html']);
      for (const f of files) {
        expect((await svc.deps.blobs.get(f.sha256)).toString()).toBe(uploaded.find((u) => u.path === f.path)!.content);
      }
      const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM blobs`.execute(svc.database.db);
      if (backend === 's3') expect(rows.rows[0]!.n).toBe(0);
      else expect(rows.rows[0]!.n).toBeGreaterThan(0);
    });

    it('refuses bytes changed in the backend before they reach the cache', async () => {
      const [index] = (await filesOf('world', '1.0.0')).filter((f) => f.path === 'index.html');
      const sha = index!.sha256;
      if (s3) await fs.writeFile(await s3.objectFile(`versions/sha256/${sha}`), 'tampered');
      else await sql`UPDATE blobs SET content = 'tampered'::bytea WHERE sha256 = decode(${sha}, 'hex')`.execute(svc.database.db);
      await expect(svc.deps.blobs.get(sha)).rejects.toBeInstanceOf(CorruptBlobError);
    });

    it('keeps the blobs of an upload refused in its transaction: stored, unreferenced, harmless', async () => {
      const content = '<!doctype html><title>conflict</title>';
      const res = await upload(
        dev,
        'cell-acme',
        'hello',
        bundle('hello', '1.0.0', { files: [{ path: 'index.html', encoding: 'utf8', content }] }),
      );
      expect(res.body.error.code).toBe('version_conflict');
      expect((await svc.deps.blobs.get(sha256(content))).toString()).toBe(content);
      const referencing = await svc.database.db
        .selectFrom('version_files')
        .select('path')
        .where('blob_sha256', '=', Buffer.from(sha256(content), 'hex'))
        .execute();
      expect(referencing).toEqual([]);
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
});
