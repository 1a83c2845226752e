import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { release } from '../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../support/identity.ts';
import { SALES } from '../support/ontology.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The SDK as served, in Node: it is fetched from the running service, written to a file and
// imported, so the test runs the very bytes an app or a script gets. Credentials come in the
// spec's order; without one nothing is sent.

let svc: TestService;
let dev: string;
let member: string;
let dir: string;
let sdk: any;
const saved = { key: process.env.SVC_API_KEY, base: process.env.SVC_BASE_URL, config: process.env.XDG_CONFIG_HOME };

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  member = await passwordKey(svc, 'mo');
  await release(svc, dev, { namespace: 'cell-acme', slug: 'hello', version: '1.0.0', manifest: { sdk: ['semantic'] } });
  dir = await mkdtemp(join(tmpdir(), 'svc-sdk-'));
  const res = await fetch(`${svc.url}/developer/sdk/v1/semantic.js`);
  expect(res.status).toBe(200);
  await writeFile(join(dir, 'semantic.mjs'), await res.text());
  sdk = await import(pathToFileURL(join(dir, 'semantic.mjs')).href);
}, 60_000);
afterAll(async () => {
  for (const [name, value] of [
    ['SVC_API_KEY', saved.key],
    ['SVC_BASE_URL', saved.base],
    ['XDG_CONFIG_HOME', saved.config],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await rm(dir, { recursive: true, force: true });
  await svc?.close();
});
beforeEach(async () => {
  delete process.env.SVC_API_KEY;
  process.env.SVC_BASE_URL = svc.url;
  // An empty config folder: no stored login unless a test writes one.
  process.env.XDG_CONFIG_HOME = await mkdtemp(join(dir, 'config-'));
  await resetRateLimits(svc);
});

const sha256hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A fetch that counts what it is asked to send. */
function countingFetch() {
  const sent: string[] = [];
  const fetchImpl = (url: string, init: RequestInit) => {
    sent.push(`${init.method} ${new URL(url).pathname}`);
    return fetch(url, init);
  };
  return { sent, fetchImpl };
}

describe('the SDK in Node', () => {
  it('uses SVC_API_KEY: reads who is signed in and logs an event the developer then sees', async () => {
    process.env.SVC_API_KEY = member;
    const client = sdk.createClient({ app: { namespace: 'cell-acme', slug: 'hello' } });
    const me = await client.auth.me({ namespace: 'cell-acme', slug: 'hello' });
    expect(me).toMatchObject({ identity: { username: 'mo' }, role: 'member', app: { namespace: 'cell-acme', slug: 'hello' } });
    expect(await client.log.track('script-ran', { rows: 3 })).toMatchObject({ stored: 1 });
    const events = await svc.call('GET', '/api/v1/developer/log/cell-acme/events?slug=hello&kind=usage', { headers: bearer(dev) });
    expect(events.body.data.events.map((e: { name: string }) => e.name)).toContain('script-ran');
  });

  it('prefers an explicit apiKey to SVC_API_KEY, and SVC_API_KEY to the stored login', async () => {
    await mkdir(join(process.env.XDG_CONFIG_HOME!, 'svc'));
    await writeFile(join(process.env.XDG_CONFIG_HOME!, 'svc', 'login.json'), JSON.stringify({ baseUrl: svc.url, key: dev }));
    expect((await sdk.createClient().auth.me()).identity.username).toBe('dana');
    process.env.SVC_API_KEY = member;
    expect((await sdk.createClient().auth.me()).identity.username).toBe('mo');
    expect((await sdk.createClient({ apiKey: dev }).auth.me()).identity.username).toBe('dana');
  });

  it('never sends an anonymous request: without a credential every call fails with 401 not_logged_in', async () => {
    const { sent, fetchImpl } = countingFetch();
    const client = sdk.createClient({ fetch: fetchImpl });
    const error = await client.auth.me().catch((e: unknown) => e);
    expect(sdk.isSvcError(error)).toBe(true);
    expect(error).toMatchObject({ marker: 'svc-sdk-error', code: 'not_logged_in', status: 401 });
    await expect(client.log.track('x')).rejects.toMatchObject({ code: 'not_logged_in' });
    expect(sent).toEqual([]);
  });

  it('throws typed errors with the service’s code and status', async () => {
    const client = sdk.createClient({ apiKey: member });
    await expect(client.auth.me({ namespace: 'cell-acme', slug: 'nope' })).rejects.toMatchObject({
      marker: 'svc-sdk-error',
      code: 'app_not_found',
      status: 404,
    });
    const bad = sdk.createClient({ apiKey: 'svc-dk-not-a-key' });
    await expect(bad.auth.me()).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('lists and executes the app’s APIs: an export answers its rows, the workflow previews, the Idempotency-Key is sent', async () => {
    expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) })).status).toBe(200);
    const customers = [
      { id: 'c1', name: 'Ada', tier: 3 },
      { id: 'c2', name: 'Bob', tier: 1 },
      { id: 'c3', name: 'Cy', tier: 2 },
    ];
    const loaded = await svc.call('POST', '/api/v1/ontologies/cell-acme/objects/sales.Customer/import', {
      body: customers,
      headers: bearer(dev),
    });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    await release(svc, dev, {
      namespace: 'cell-acme',
      slug: 'accounts',
      version: '1.0.0',
      manifest: {
        sdk: ['semantic'],
        semantic: { types: ['sales.Customer'] },
        exports: [
          {
            name: 'best',
            title: 'Best customers',
            kind: 'query',
            type: 'sales.Customer',
            input: { min: { type: 'integer', required: true } },
            where: { tier: { gte: '=input.min' } },
            select: ['id', 'name'],
            sort: ['-tier'],
          },
        ],
        workflow: { steps: [{ id: 'people', kind: 'use', capability: 'platform.accounts' }] },
      },
    });
    const headersSent: Record<string, string>[] = [];
    const fetchImpl = (url: string, init: RequestInit) => {
      headersSent.push(init.headers as Record<string, string>);
      return fetch(url, init);
    };
    const client = sdk.createClient({ apiKey: member, app: { namespace: 'cell-acme', slug: 'accounts' }, fetch: fetchImpl });
    const listed = await client.apis.list();
    expect(listed.apis.map((a: { name: string; kind: string }) => [a.name, a.kind])).toEqual([
      ['best', 'query'],
      ['run', 'workflow'],
    ]);
    const best = await client.apis.execute('best', { min: 2 });
    expect(best.result.data.map((o: { id: string; name: string }) => [o.id, o.name])).toEqual([
      ['c1', 'Ada'],
      ['c3', 'Cy'],
    ]);
    const plan = await client.apis.execute('run', {}, { preview: true, idempotencyKey: 'sdk-once' });
    expect(plan.plan.steps).toEqual([{ id: 'people', kind: 'use', lane: null }]);
    expect(headersSent.at(-1)).toMatchObject({ 'idempotency-key': 'sdk-once' });
    await expect(client.apis.execute('best', {})).rejects.toMatchObject({ code: 'invalid_payload', status: 400 });
  });

  it('sends at most 10 captured errors per class', async () => {
    const client = sdk.createClient({ apiKey: member, app: { namespace: 'cell-acme', slug: 'hello' } });
    const results = [];
    for (let i = 0; i < 12; i++) results.push(await client.log.error(new RangeError(`out of range ${i}`)));
    expect(results.filter((r: { dropped?: boolean }) => r.dropped).length).toBe(2);
    expect((await client.log.error(new TypeError('other class'))).dropped).toBeUndefined();
  });

  it('media: uploads an item with progress as its bytes stream, reads it back by range, transforms it, and throws the service’s codes', async () => {
    const set = await svc.call('POST', '/api/v1/mediasets', { body: { name: 'SDK photos', schema: 'image' }, headers: bearer(dev) });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    const rid = set.body.data.rid;
    // Noise does not compress: a PNG of about 300 KB, several chunks of the stream.
    const noise = randomBytes(320 * 320 * 3);
    const png = await sharp(noise, { raw: { width: 320, height: 320, channels: 3 } })
      .png()
      .toBuffer();
    const client = sdk.createClient({ apiKey: dev, baseUrl: svc.url });
    const progress: { loaded: number; total: number }[] = [];
    const item = await client.media.upload(rid, 'shelves/a.png', new Uint8Array(png), {
      contentType: 'image/png',
      onProgress: (p: { loaded: number; total: number }) => progress.push(p),
    });
    expect(item).toMatchObject({ path: 'shelves/a.png', mimeType: 'image/png', sizeBytes: png.length, sha256: sha256hex(png) });
    expect(progress.length).toBeGreaterThan(2);
    expect(progress[0]).toEqual({ loaded: 0, total: png.length });
    expect(progress.at(-1)).toEqual({ loaded: png.length, total: png.length });
    expect(progress.every((p, i) => i === 0 || p.loaded > progress[i - 1]!.loaded)).toBe(true);

    // A Blob brings its own type.
    const blob = await client.media.upload(rid, 'shelves/b.png', new Blob([png], { type: 'image/png' }));
    expect(blob.mimeType).toBe('image/png');
    expect(await client.media.url(rid, item.mediaItemRid)).toBe(`${svc.url}/api/v1/mediasets/${rid}/items/${item.mediaItemRid}/content`);
    const part = await client.media.read(rid, item.mediaItemRid, { range: { start: 8, end: 15 } });
    expect([Buffer.from(part.bytes), part.contentType, part.etag]).toEqual([png.subarray(8, 16), 'image/png', `"${sha256hex(png)}"`]);
    expect((await client.media.item(rid, item.mediaItemRid)).sizeBytes).toBe(png.length);
    const job = await client.media.transform(rid, item.mediaItemRid, {
      type: 'image',
      operations: [{ type: 'resize', width: 64 }],
      encoding: { type: 'jpeg' },
    });
    expect(job).toMatchObject({ status: 'SUCCESSFUL', mimeType: 'image/jpeg' });

    const refusals = [
      client.media.upload(rid, '../up.png', png, { contentType: 'image/png' }),
      client.media.upload(rid, 'c.png', png, { contentType: 'image/png', mediaItemRid: item.mediaItemRid }),
      client.media.upload(rid, 'd.txt', new TextEncoder().encode('text')),
      client.media.read(rid, 'ri.mio.svc.media-item.00000000-0000-0000-0000-000000000000'),
    ];
    const codes = await Promise.all(
      refusals.map((p) =>
        p.then(
          () => 'resolved',
          (e: { code: string; marker: string }) => [e.code, e.marker],
        ),
      ),
    );
    expect(codes).toEqual([
      ['media_item_path_invalid', 'svc-sdk-error'],
      ['media_item_rid_already_exists', 'svc-sdk-error'],
      ['invalid_media_item_schema', 'svc-sdk-error'],
      ['media_item_not_found', 'svc-sdk-error'],
    ]);
  });

  it('attachments: uploads a file with progress as its bytes stream, reads it back by range, and throws the service’s codes', async () => {
    const client = sdk.createClient({ apiKey: dev, baseUrl: svc.url });
    const bytes = randomBytes(200 * 1024);
    const progress: { loaded: number; total: number }[] = [];
    const attachment = await client.attachments.upload('scan 1.pdf', new Uint8Array(bytes), {
      contentType: 'application/pdf',
      onProgress: (p: { loaded: number; total: number }) => progress.push(p),
    });
    expect(attachment).toEqual({ rid: attachment.rid, filename: 'scan 1.pdf', sizeBytes: bytes.length, mediaType: 'application/pdf' });
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.at(-1)).toEqual({ loaded: bytes.length, total: bytes.length });
    expect(await client.attachments.get(attachment.rid)).toEqual(attachment);
    const part = await client.attachments.read(attachment.rid, { range: { start: 100, end: 199 } });
    expect([Buffer.from(part.bytes), part.contentType, part.etag]).toEqual([
      bytes.subarray(100, 200),
      'application/pdf',
      `"${sha256hex(bytes)}"`,
    ]);
    // A Blob brings its own type.
    expect((await client.attachments.upload('b.txt', new Blob(['hi'], { type: 'text/plain' }))).mediaType).toBe('text/plain');

    const codes = await Promise.all(
      [
        client.attachments.upload('a/b.txt', new Uint8Array(1)),
        client.attachments.read('ri.attachments.main.attachment.00000000-0000-4000-8000-000000000000'),
        sdk.createClient({ apiKey: member, baseUrl: svc.url }).attachments.get(attachment.rid),
      ].map((p) =>
        p.then(
          () => 'resolved',
          (e: { code: string }) => e.code,
        ),
      ),
    );
    expect(codes).toEqual(['invalid_payload', 'attachment_not_found', 'attachment_not_found']);
  });

  it('streams: pushes records into a stream of the company, and throws the service’s codes by path', async () => {
    const base = '/api/v1/developer/streams/cell-acme';
    const fields = [{ name: 'id', type: 'long', required: true }];
    expect((await svc.call('POST', base, { body: { name: 'sdk-readings', fields }, headers: bearer(dev) })).status).toBe(201);
    const svcClient = sdk.createClient({ apiKey: dev });
    const pushed = await svcClient.streams.push('sdk-readings', [{ id: 1 }, { id: 2 }], { namespace: 'cell-acme' });
    expect(pushed).toEqual({ accepted: 2, firstSequence: 1, lastSequence: 2, objectTypes: [] });
    const refused = await svcClient.streams.push('sdk-readings', [{ id: 'one' }], { namespace: 'cell-acme' }).catch((e: any) => e);
    expect([refused.code, refused.status, refused.details.problems[0].path]).toEqual(['invalid_payload', 400, 'records[0].id']);
  });

  it('serves the legacy names as the same module, ui.css, and declarations that compile', async () => {
    const alias = await fetch(`${svc.url}/developer/sdk/v1/log.js`);
    expect(await alias.text()).toBe("export * from './semantic.js';\n");
    expect(alias.headers.get('access-control-allow-origin')).toBe('*');
    const css = await fetch(`${svc.url}/developer/sdk/v1/ui.css`);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(css.headers.get('cache-control')).toBe('public, max-age=300');
    const version = (await svc.call('GET', '/api/v1/health')).body.data.version;
    const pinned = await fetch(`${svc.url}/developer/sdk/v1/${version}/semantic.js`);
    expect(pinned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${svc.url}/developer/sdk/v1/0.0.1/semantic.js`)).status).toBe(404);
    expect((await fetch(`${svc.url}/developer/sdk/v1/vision.js`)).status).toBe(404);

    const types = await (await fetch(`${svc.url}/developer/sdk/v1/semantic.d.ts`)).text();
    await writeFile(join(dir, 'semantic.d.ts'), types);
    await writeFile(
      join(dir, 'use.ts'),
      "import { createClient, type AuthMe } from './semantic.js';\n" +
        'const me: AuthMe = await createClient().auth.me();\n' +
        'const role: "developer" | "member" | "editor" | "viewer" | null = me.role;\n' +
        "await createClient().log.feedback({ topic: 'search', rating: 4 });\n" +
        "const item = await createClient().media.upload('set', 'a.png', new Uint8Array(4), { onProgress: (p) => p.loaded / p.total });\n" +
        'const size: number = item.sizeBytes;\n' +
        "await createClient().media.transform('set', item.mediaItemRid, { type: 'image', encoding: { type: 'webp' } });\n" +
        '// @ts-expect-error: no such encoding\n' +
        "await createClient().media.transform('set', item.mediaItemRid, { type: 'image', encoding: { type: 'bmp' } });\n" +
        '// @ts-expect-error: feedback needs a topic\n' +
        'await createClient().log.feedback({ rating: 4 });\n' +
        'export { role, size };\n',
    );
    const tsc = join(process.cwd(), 'node_modules', '.bin', 'tsc');
    const args = [
      '--ignoreConfig',
      '--noEmit',
      '--strict',
      '--module',
      'esnext',
      '--moduleResolution',
      'bundler',
      '--target',
      'es2022',
      '--skipLibCheck',
      join(dir, 'use.ts'),
    ];
    const result = await promisify(execFile)(tsc, args).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    expect(result).toBe('');
  });
});
