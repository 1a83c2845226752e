import { MockActivityEnvironment } from '@temporalio/testing';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMediaActivities } from '../../activities/media.ts';
import type { AssemblyOutcome } from '../../domain/media/index.ts';
import { launchBrowser } from '../support/browser.ts';
import { injected, rawGet, release } from '../support/hosting.ts';
import { bearer, createUser, PASSWORD, passwordKey, resetRateLimits, seedCompanies, signIn } from '../support/identity.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Issue 30's acceptance: a member's app uploads a photo into an object's media property through
// the SDK with progress, sets it on the object through an action, and reads the photo and a
// thumbnail through the object; a viewer's ticket is refused. The API role runs no worker, so the
// test does what the assembly workflow does (its activities, in Temporal's activity environment)
// once the SDK has completed the session and polls it.

// The SDK as an app's page gets it (the same file the service serves), typed by its declarations.
const { createClient }: typeof import('../../sdk/v1/client.d.ts') = await import('../../sdk/v1/semantic.js' as string);

const APP = { namespace: 'cell-acme', slug: 'photos' };
const PHOTO_TYPE = {
  apiName: 'vision.Photo',
  primaryKey: 'id',
  properties: { id: { dataType: { type: 'string' } }, image: { dataType: { type: 'mediaReference' } } },
};
const SET_IMAGE = {
  apiName: 'vision.setImage',
  parameters: {
    photo: { dataType: { type: 'objectReference', objectType: 'vision.Photo' } },
    image: { dataType: { type: 'mediaReference' } },
  },
  edits: [{ type: 'modifyObject', object: 'photo', properties: { image: { parameter: 'image' } } }],
};

let svc: TestService;
let browser: Browser;
let dev: string;
let photo: Buffer;
const tickets: Record<'member' | 'viewer', string> = { member: '', viewer: '' };

const ok = (res: { status: number; body: unknown }, status = 200) => expect(res.status, JSON.stringify(res.body)).toBe(status);
const appUrl = () => `${svc.addresses.productionBase}/${APP.namespace}/apps/${APP.slug}`;

beforeAll(async () => {
  svc = await startTestService();
  const { op } = await seedCompanies(svc);
  await createUser(svc, op, 'vic', [{ cellId: 'cell-globex', role: 'member' }]);
  dev = await passwordKey(svc, 'dana');
  const call = (path: string, body: unknown) => svc.call('POST', path, { body, headers: bearer(dev) });
  ok(await call('/api/v1/developer/semantic/cell-acme/types', { types: [PHOTO_TYPE] }));
  ok(await call('/api/v1/developer/semantic/cell-acme/actionTypes', { actionTypes: [SET_IMAGE] }));
  ok(
    await call('/api/v1/ontologies/cell-acme/edits', {
      edits: ['p1', 'p2'].map((id) => ({ type: 'create', objectType: 'vision.Photo', properties: { id } })),
    }),
  );
  await release(svc, dev, {
    ...APP,
    version: '1.0.0',
    manifest: { sdk: ['semantic'], semantic: { types: ['vision.Photo'], actions: ['vision.setImage'], write: ['vision.Photo'] } },
    files: [
      {
        path: 'index.html',
        encoding: 'utf8',
        content: '<!doctype html><html><head><title>loading</title></head><body><script src="app.js"></script></body></html>',
      },
      {
        path: 'app.js',
        encoding: 'utf8',
        // A classic script importing the SDK: the page's own files are not served for CORS module loads.
        content: `import('${svc.url}/developer/sdk/v1/semantic.js').then(({ createClient }) => { self.svc = createClient(); document.title = 'ready'; });`,
      },
    ],
  });
  // vic (Globex) reaches the app through a public link only: a viewer.
  const link = await call('/api/v1/developer/shares', { ...APP, audience: 'public' });
  ok(link, 201);
  const ticketAt = async (url: string, login: string) => {
    const page = await rawGet(url, { cookie: await signIn(svc, login) });
    expect(page.status, page.text).toBe(200);
    return injected(page.text).ticket;
  };
  tickets.member = await ticketAt(appUrl(), 'mo');
  tickets.viewer = await ticketAt(link.body.data.url, 'vic');
  // A real photo: a noisy 1200 × 900 JPEG (a few hundred KB), so it spans several small parts.
  const noise = Buffer.alloc(1200 * 900 * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  photo = await sharp(noise, { raw: { width: 1200, height: 900, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
  browser = await launchBrowser();
}, 120_000);
// A ticket's requests count against the app's per-IP budget: each test starts in a fresh window.
beforeEach(() => resetRateLimits(svc));
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** The next session to be COMPLETING (the SDK completed it and polls). */
async function nextCompleting(): Promise<string> {
  let id: string | undefined;
  await expect
    .poll(
      async () => {
        const row = await svc.database.db.selectFrom('media_uploads').select('id').where('state', '=', 'COMPLETING').executeTakeFirst();
        id = row?.id;
        return id !== undefined;
      },
      { timeout: 60_000 },
    )
    .toBe(true);
  return id!;
}

/**
 * Does what the next completing session's assembly workflow does (`tamper` first changes what the
 * assembly will find, as a store that lost or changed a part would).
 */
async function assembleNextCompleting(tamper?: (uploadId: string) => Promise<unknown>) {
  const uploadId = await nextCompleting();
  await tamper?.(uploadId);
  const activities = createMediaActivities({ db: svc.deps.db, blobs: svc.deps.blobs });
  const env = new MockActivityEnvironment();
  const assembled = (await env.run(activities.assembleMediaUpload, { uploadId })) as AssemblyOutcome;
  if (assembled.outcome === 'assembled') await env.run(activities.attachMediaUpload, { uploadId, ...assembled });
  return { uploadId, outcome: assembled.outcome };
}

type Progress = { loaded: number; total: number };
const expectWholeProgress = (events: Progress[], total: number) => {
  expect(events.length).toBeGreaterThan(2);
  expect(events.every((e) => e.total === total)).toBe(true);
  const loaded = events.map((e) => e.loaded);
  expect(loaded).toEqual([...loaded].sort((a, b) => a - b));
  expect(new Set(loaded).size).toBe(loaded.length);
  expect([loaded[0], loaded.at(-1)]).toEqual([0, total]);
};

describe('a member’s app uploads a photo into a media property', () => {
  it('in Chromium: uploads with progress, sets it through an action, reads the photo and a thumbnail through the object', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${svc.url}/signin`);
      await page.getByLabel('Username or email').fill('mo');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname !== '/signin');
      await page.goto(appUrl());
      await expect.poll(() => page.title()).toBe('ready');

      const ran = page.evaluate(async (base64) => {
        const svc = (globalThis as any).svc;
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const progress: Progress[] = [];
        const file = new Blob([bytes], { type: 'image/jpeg' });
        const reference = await svc.media.uploadToProperty('vision.Photo', 'image', file, {
          partSize: 128 * 1024,
          onProgress: (p: Progress) => progress.push(p),
        });
        await svc.semantic.apply('vision.setImage', { photo: 'p1', image: reference });
        const read = await svc.media.readOfObject('vision.Photo', 'p1', 'image');
        const thumb = await svc.media.thumbnailOfObject('vision.Photo', 'p1', 'image', { width: 160, height: 160, format: 'png' });
        const b64 = (u: Uint8Array) => btoa(Array.from(u, (c) => String.fromCharCode(c)).join(''));
        return {
          reference,
          progress,
          photo: { bytes: b64(read.bytes), type: read.contentType },
          thumb: { bytes: b64(thumb.bytes), type: thumb.contentType },
        };
      }, photo.toString('base64'));
      const { outcome, uploadId } = await assembleNextCompleting();
      expect(outcome).toBe('assembled');
      const out = await ran;

      expect(out.reference).toMatchObject({ mimeType: 'image/jpeg', reference: { type: 'mediaSetViewItem' } });
      expectWholeProgress(out.progress, photo.length);
      // Per part in a browser: one event at the start and one after each of the parts.
      expect(out.progress).toHaveLength(1 + Math.ceil(photo.length / (128 * 1024)));
      const session = await svc.database.db
        .selectFrom('media_uploads')
        .select(['primary_key', 'state'])
        .where('id', '=', uploadId)
        .executeTakeFirstOrThrow();
      expect(session).toEqual({ primary_key: null, state: 'COMPLETED' });
      const object = await svc.call('GET', '/api/v1/ontologies/cell-acme/objects/vision.Photo/p1', { headers: bearer(dev) });
      expect(object.body.data.image).toEqual(out.reference);

      expect(out.photo.type).toBe('image/jpeg');
      expect(Buffer.from(out.photo.bytes, 'base64').equals(photo)).toBe(true);
      expect(out.thumb.type).toBe('image/png');
      const meta = await sharp(Buffer.from(out.thumb.bytes, 'base64')).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 160, 120]);
    } finally {
      await context.close();
    }
  });

  it('in Node: sends the parts in order with progress over the whole item, retrying a failed part once', async () => {
    let failed = 0;
    const sent: string[] = [];
    // The second part fails once on the way (as a dropped connection): it is sent again.
    const flaky: typeof fetch = async (input, init) => {
      const url = String(input);
      if (init?.method === 'PUT') sent.push(url.split('/').at(-1)!);
      if (init?.method === 'PUT' && url.endsWith('/parts/2') && failed++ === 0) throw new TypeError('socket hang up');
      return fetch(input, init);
    };
    const client = createClient({ apiKey: tickets.member, baseUrl: svc.url!, app: APP, storedLogin: false, fetch: flaky });
    const progress: Progress[] = [];
    const partSize = 100 * 1024;
    const [reference] = await Promise.all([
      client.media.uploadToProperty('vision.Photo', 'image', new Uint8Array(photo), {
        contentType: 'image/jpeg',
        partSize,
        onProgress: (p: Progress) => progress.push(p),
      }),
      assembleNextCompleting().then((a) => expect(a.outcome).toBe('assembled')),
    ]);
    const parts = Math.ceil(photo.length / partSize);
    expect(sent).toEqual(['1', '2', ...Array.from({ length: parts - 1 }, (_, i) => String(i + 2))]);
    expectWholeProgress(progress, photo.length);
    // Streamed in Node: more events than parts (the bytes are reported as the request takes them).
    expect(progress.length).toBeGreaterThan(parts + 1);
    await client.semantic.apply('vision.setImage', { photo: 'p2', image: reference });
    const read = await client.media.readOfObject('vision.Photo', 'p2', 'image', { range: { start: 0, end: 1 } });
    expect(Buffer.from(read.bytes)).toEqual(photo.subarray(0, 2));
    client.close();
  });

  it('throws the failure’s code when the assembly fails, and drops the session when aborted', async () => {
    const client = createClient({ apiKey: tickets.member, baseUrl: svc.url!, app: APP, storedLogin: false });
    const [failed] = await Promise.all([
      client.media
        .uploadToProperty('vision.Photo', 'image', photo.subarray(0, 1000), { contentType: 'image/jpeg' })
        .catch((e: unknown) => e as { code: string; details: { state: string } }),
      // The part's recorded size no longer matches its bytes.
      assembleNextCompleting((id) =>
        svc.database.db.updateTable('media_upload_parts').set({ size: 999 }).where('upload_id', '=', id).execute(),
      ),
    ]);
    expect([failed.code, failed.details.state]).toEqual(['media_upload_size_mismatch', 'FAILED']);

    // Aborted while polling a COMPLETING session: the promise rejects with the reason and the session is PURGED.
    const abort = new AbortController();
    const aborted = client.media
      .uploadToProperty('vision.Photo', 'image', photo.subarray(0, 1000), { contentType: 'image/jpeg', signal: abort.signal })
      .catch((e: unknown) => e);
    const uploadId = await nextCompleting();
    abort.abort(new Error('the visitor left'));
    expect(((await aborted) as Error).message).toBe('the visitor left');
    const session = await svc.database.db.selectFrom('media_uploads').select('state').where('id', '=', uploadId).executeTakeFirstOrThrow();
    expect(session.state).toBe('PURGED');
    client.close();
  });

  it('refuses a viewer’s ticket (403) and a ticket’s session that names its object', async () => {
    const viewer = createClient({ apiKey: tickets.viewer, baseUrl: svc.url!, app: APP, storedLogin: false });
    const refused = await viewer.media
      .uploadToProperty('vision.Photo', 'image', photo, { contentType: 'image/jpeg' })
      .catch((e: unknown) => e as { code: string; status: number; message: string; details?: { required?: string } });
    expect([refused.code, refused.status, refused.message]).toEqual([
      'forbidden',
      403,
      'Viewers read only: this app ticket cannot upload media.',
    ]);
    const member = createClient({ apiKey: tickets.member, baseUrl: svc.url!, app: APP, storedLogin: false });
    const direct = await member.media
      .uploadToProperty('vision.Photo', 'image', photo, { contentType: 'image/jpeg', primaryKey: 'p2' })
      .catch((e: unknown) => e as { code: string; status: number; message: string; details?: { required?: string } });
    expect([direct.code, direct.status, direct.details?.required]).toEqual(['forbidden', 403, 'developer']);
    // A part size the service would refuse is refused before anything is sent (no session opened).
    const opened = await svc.database.db.selectFrom('media_uploads').select('id').execute();
    const zero = await member.media
      .uploadToProperty('vision.Photo', 'image', photo, { partSize: 0 })
      .catch((e: unknown) => e as { code: string });
    expect(zero.code).toBe('invalid_payload');
    expect(await svc.database.db.selectFrom('media_uploads').select('id').execute()).toHaveLength(opened.length);
    // Whoever reads the object reads its photo: the viewer too.
    const read = await viewer.media.thumbnailOfObject('vision.Photo', 'p1', 'image', { width: 40 });
    expect((await sharp(Buffer.from(read.bytes)).metadata()).width).toBe(40);
    // A session opened by another account does not exist for the member's ticket.
    const dana = await svc.call('POST', '/api/v1/ontologies/cell-acme/objectTypes/vision.Photo/media/image/uploads', {
      body: { sizeBytes: 1, mimeType: 'image/png' },
      headers: bearer(dev),
    });
    ok(dana, 201);
    const other = await svc.call(
      'DELETE',
      `/api/v1/ontologies/cell-acme/objectTypes/vision.Photo/media/image/uploads/${dana.body.data.uploadId}`,
      {
        headers: bearer(tickets.member),
      },
    );
    expect([other.status, other.body.error?.code]).toEqual([404, 'media_upload_not_found']);
    viewer.close();
    member.close();
  });
});
