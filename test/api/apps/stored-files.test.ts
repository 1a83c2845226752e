import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundle } from '../../support/bundles.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// The upload's extension for the CLI's send-only-what-changed: which contents a namespace holds,
// and uploads that name stored contents by hash (`storedFiles`).

let svc: TestService;
let dev: string;
let member: string;
let globex: string;

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  member = await passwordKey(svc, 'mo');
  globex = await passwordKey(svc, 'gus');
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const upload = (key: string, ns: string, slug: string, body: unknown, headers: Record<string, string> = {}) =>
  svc.call('POST', `/api/v1/developer/apps/${ns}/${slug}/versions`, { body, headers: { ...bearer(key), ...headers } });
const stored = (key: string, ns: string, slug: string, hashes: string[]) =>
  svc.call('GET', `/api/v1/developer/apps/${ns}/${slug}/stored-files?sha256=${hashes.join(',')}`, { headers: bearer(key) });

const page = (text: string) => ({
  path: 'index.html',
  encoding: 'utf8' as const,
  content: `<!doctype html><title>t</title><p>${text}</p>`,
});
const script = { path: 'app.js', encoding: 'utf8' as const, content: 'console.log("kept across versions");' };

describe('GET …/stored-files', () => {
  it('confirms only contents that versions of the caller’s namespace hold, whatever the app', async () => {
    const acmeOnly = page('acme secret');
    expect((await upload(dev, 'cell-acme', 'keeper', bundle('keeper', '1.0.0', { files: [acmeOnly, script] }))).status).toBe(201);
    const never = sha('never uploaded');
    const res = await stored(dev, 'cell-acme', 'another-app', [sha(acmeOnly.content), never, sha(script.content)]);
    expect(res.status).toBe(200);
    expect(res.body.data.stored.sort()).toEqual([sha(acmeOnly.content), sha(script.content)].sort());
  });

  it('never confirms another company’s content (no cross-company oracle)', async () => {
    const globexPage = page('globex only');
    expect((await upload(globex, 'cell-globex', 'gx', bundle('gx', '1.0.0', { files: [globexPage] }))).status).toBe(201);
    // The bytes are in the shared blob store now, but Acme's versions do not hold them.
    const res = await stored(dev, 'cell-acme', 'keeper', [sha(globexPage.content)]);
    expect(res.body.data.stored).toEqual([]);
    // Nor can Acme refer to them in an upload: the content stays Globex's.
    const up = await upload(dev, 'cell-acme', 'thief', {
      manifest: bundle('thief', '1.0.0').manifest,
      files: [],
      storedFiles: [{ path: 'index.html', sha256: sha(globexPage.content) }],
    });
    expect([up.status, up.body.error.code]).toEqual([422, 'bundle_invalid']);
    expect(up.body.error.details.problems).toEqual([
      { path: 'storedFiles[0].sha256', code: 'content_not_stored', message: expect.stringContaining('send it in files') },
    ]);
  });

  it('refuses members, other companies’ namespaces, missing keys and malformed hashes', async () => {
    const h = sha('x');
    expect((await stored(member, 'cell-acme', 'keeper', [h])).status).toBe(403);
    expect((await stored(globex, 'cell-acme', 'keeper', [h])).status).toBe(403);
    expect((await svc.call('GET', `/api/v1/developer/apps/cell-acme/keeper/stored-files?sha256=${h}`)).status).toBe(401);
    const bad = await stored(dev, 'cell-acme', 'keeper', [h, 'ABC']);
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_payload']);
    expect(bad.body.error.details.problems[0].path).toBe('query.sha256[1]');
    const tooMany = await stored(
      dev,
      'cell-acme',
      'keeper',
      Array.from({ length: 101 }, (_, i) => sha(String(i))),
    );
    expect(tooMany.status).toBe(400);
  });
});

describe('POST …/versions with storedFiles', () => {
  it('builds the version from sent and stored files: same digest as the whole bundle, the stored bytes served back', async () => {
    const v1 = bundle('mixer', '1.0.0', { files: [page('one'), script] });
    expect((await upload(dev, 'cell-acme', 'mixer', v1)).status).toBe(201);
    const whole = bundle('mixer', '1.1.0', { files: [page('two'), script] });
    const dry = await upload(dev, 'cell-acme', 'mixer', whole, { 'x-svc-dry-run': 'true' });
    const res = await upload(dev, 'cell-acme', 'mixer', {
      manifest: whole.manifest,
      files: [page('two')],
      storedFiles: [{ path: 'app.js', sha256: sha(script.content) }],
      notes: 'only the page changed',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ version: '1.1.0', buildLabel: '#2', digest: dry.body.data.plan.digest });
    // Retrying with the whole bundle finds the identical version.
    const again = await upload(dev, 'cell-acme', 'mixer', whole);
    expect([again.status, again.body.data.build]).toEqual([200, 2]);
    const files = await svc.database.db
      .selectFrom('version_files as f')
      .innerJoin('app_versions as v', 'v.id', 'f.version_id')
      .select(['f.path', 'f.blob_sha256'])
      .where('v.version', '=', '1.1.0')
      .orderBy('f.path')
      .execute();
    expect(files.map((f) => [f.path, f.blob_sha256.toString('hex')])).toEqual([
      ['app.js', sha(script.content)],
      ['index.html', sha(page('two').content)],
    ]);
  });

  it('validates stored files like sent ones and names them as sent', async () => {
    await upload(dev, 'cell-acme', 'namer', bundle('namer', '1.0.0', { files: [page('n'), script] }));
    const res = await upload(dev, 'cell-acme', 'namer', {
      manifest: bundle('namer', '1.0.1').manifest,
      files: [page('n2')],
      storedFiles: [{ path: 'app.exe', sha256: sha(script.content) }],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details.problems).toEqual([expect.objectContaining({ path: 'storedFiles[0].path', code: 'file_type' })]);
  });

  it('counts files and storedFiles together against the 200-file limit, and refuses unknown fields', async () => {
    const files = Array.from({ length: 150 }, (_, i) => ({ path: `f${i}.txt`, encoding: 'utf8', content: String(i) }));
    const storedFiles = Array.from({ length: 51 }, (_, i) => ({ path: `s${i}.txt`, sha256: sha(String(i)) }));
    const res = await upload(dev, 'cell-acme', 'counter', { manifest: bundle('counter', '1.0.0').manifest, files, storedFiles });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_payload']);
    expect(res.body.error.details.problems).toEqual([expect.objectContaining({ path: 'storedFiles', code: 'too_many_files' })]);
    const odd = await upload(dev, 'cell-acme', 'counter', {
      ...bundle('counter', '1.0.0'),
      storedFiles: [{ path: 'a.js', sha256: sha('a'), content: 'x' }],
    });
    expect(odd.body.error.details.problems).toEqual([
      expect.objectContaining({ path: 'storedFiles[0].content', code: 'unrecognized_keys' }),
    ]);
  });
});
