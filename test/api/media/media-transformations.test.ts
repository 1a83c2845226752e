import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MEDIA_LIMITS } from '../../../schemas/media.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Media transformations (issue 30, item 4): thumbnails and format conversion with sharp on the
// worker threads, jobs named by input hash and transformation (the cache), their results answered
// like item content; hostile images (not an image, a decompression bomb) never give a 5xx.

let svc: TestService;
let dana: string;
let gus: string;
let mo: string;
let set: string;

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  [dana, gus, mo] = await Promise.all([passwordKey(svc, 'dana'), passwordKey(svc, 'gus'), passwordKey(svc, 'mo')]);
  const res = await svc.call('POST', '/api/v1/mediasets', { body: { name: 'Shots', schema: 'any' }, headers: bearer(dana) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  set = res.body.data.rid;
});
afterAll(() => svc?.close());
beforeEach(() => resetRateLimits(svc));

let n = 0;
async function putItem(bytes: Buffer, type: string, extension = 'png'): Promise<string> {
  const res = await svc.call('POST', `/api/v1/mediasets/${set}/items?mediaItemPath=shots/${++n}.${extension}`, {
    rawBody: bytes,
    headers: { ...bearer(dana), 'content-type': type },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.mediaItemRid;
}

const itemUrl = (item: string) => `/api/v1/mediasets/${set}/items/${item}`;
const transform = (item: string, transformation: object, key = dana) =>
  svc.call('POST', `${itemUrl(item)}/transform`, { body: { transformation }, headers: bearer(key) });
const result = (item: string, jobId: string, headers: Record<string, string> = {}) =>
  fetch(`${svc.url}${itemUrl(item)}/transform/${jobId}/result`, { headers: { ...bearer(dana), ...headers } });

/** A 640×480 photo-like JPEG with EXIF (as a phone's photo has: where it was taken). */
const photo = () =>
  sharp({ create: { width: 640, height: 480, channels: 3, background: '#4a7' } })
    .composite([{ input: Buffer.from('<svg width="640" height="480"><circle cx="320" cy="240" r="200" fill="#c33"/></svg>') }])
    .withExif({ IFD0: { Copyright: 'Dana', ImageDescription: 'the shop at 48.85N 2.35E' } })
    .jpeg()
    .toBuffer();

/** A PNG that is only a header claiming width × height pixels: what a decompression bomb shows the decoder first. */
function pngHeader(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit grayscale
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(64))), chunk('IEND', Buffer.alloc(0))]);
}
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

describe('media transformations', () => {
  it('makes a WebP thumbnail once: the same request finds the job done, its result served like content', async () => {
    const item = await putItem(await photo(), 'image/jpeg', 'jpg');
    const thumbnail = { type: 'image', operations: [{ type: 'resize', width: 160 }], encoding: { type: 'webp', quality: 70 } };
    const first = await transform(item, thumbnail);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.data).toMatchObject({ status: 'SUCCESSFUL', mimeType: 'image/webp', failure: null });
    const { jobId, sizeBytes } = first.body.data;

    const res = await result(item, jobId);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(sizeBytes);
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif]).toEqual(['webp', 160, 120, undefined]);
    expect((await sharp(await photo()).metadata()).exif).toBeDefined();
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('etag')).toBe(`"${createHash('sha256').update(bytes).digest('hex')}"`);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename*=UTF-8''${n}.webp`);
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox/);
    const part = await result(item, jobId, { range: 'bytes=0-9' });
    expect([part.status, Buffer.from(await part.arrayBuffer())]).toEqual([206, bytes.subarray(0, 10)]);

    // The same transformation (its keys in another order) of the same bytes at another path: the same job, not run again.
    const again = await putItem(await photo(), 'image/jpeg', 'jpg');
    const rows = () => svc.database.db.selectFrom('media_transformations').select('id').where('id', '=', jobId).execute();
    const repeated = await transform(again, { encoding: { quality: 70, type: 'webp' }, operations: thumbnail.operations, type: 'image' });
    expect(repeated.body.data).toEqual(first.body.data);
    expect(await rows()).toHaveLength(1);
    const status = await svc.call('GET', `${itemUrl(again)}/transform/${jobId}/status`, { headers: bearer(dana) });
    expect(status.body.data).toEqual(first.body.data);
    // Another transformation is another job.
    const png = await transform(item, { ...thumbnail, encoding: { type: 'png' } });
    expect(png.body.data.jobId).not.toBe(jobId);
  });

  it('applies operations in order and converts formats', async () => {
    const item = await putItem(await photo(), 'image/jpeg', 'jpg');
    // Rotated first, then resized: 480×640 → 120×160 (the other order would give 90×120).
    const rotated = await transform(item, {
      type: 'image',
      operations: [{ type: 'rotate', angle: 90 }, { type: 'resize', width: 120 }, { type: 'grayscale' }],
      encoding: { type: 'png' },
    });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(201);
    const bytes = Buffer.from(await (await result(item, rotated.body.data.jobId)).arrayBuffer());
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['png', 120, 160, 1]);
    // A thumbnail box is never an enlargement; cover fills it exactly.
    const box = (fit: string) =>
      transform(item, { type: 'image', operations: [{ type: 'resize', width: 2000, height: 100, fit }], encoding: { type: 'jpeg' } });
    const sizeOf = async (res: Awaited<ReturnType<typeof box>>) =>
      sharp(Buffer.from(await (await result(item, res.body.data.jobId)).arrayBuffer())).metadata();
    expect(await sizeOf(await box('inside'))).toMatchObject({ format: 'jpeg', width: 133, height: 100 });
    expect(await sizeOf(await box('cover'))).toMatchObject({ width: 2000, height: 100 });
  });

  it('refuses what it cannot do: other kinds, other types, invalid operations', async () => {
    const item = await putItem(await photo(), 'image/jpeg', 'jpg');
    const audio = await transform(item, { type: 'audio', encoding: { type: 'mp3' } });
    expect([audio.status, audio.body.error.code]).toEqual([422, 'transformation_unavailable']);
    const pdf = await putItem(Buffer.from('%PDF-1.4\n'), 'application/pdf', 'pdf');
    const ofPdf = await transform(pdf, { type: 'image', encoding: { type: 'png' } });
    expect([ofPdf.status, ofPdf.body.error.code, ofPdf.body.error.details.mimeType]).toEqual([
      422,
      'transformation_unavailable',
      'application/pdf',
    ]);
    const svg = await putItem(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml', 'svg');
    expect((await transform(svg, { type: 'image', encoding: { type: 'png' } })).body.error.code).toBe('transformation_unavailable');
    for (const transformation of [
      { type: 'image', encoding: { type: 'gif' } },
      { type: 'image', operations: [{ type: 'resize', width: MEDIA_LIMITS.transformationOutputSide + 1 }], encoding: { type: 'png' } },
      { type: 'image', operations: [{ type: 'resize', width: 10, fit: 'cover' }], encoding: { type: 'png' } },
      { type: 'image', operations: [{ type: 'rotate', angle: 45 }], encoding: { type: 'png' } },
      {
        type: 'image',
        operations: Array(MEDIA_LIMITS.transformationOperations + 1).fill({ type: 'grayscale' }),
        encoding: { type: 'png' },
      },
      { type: 'image', encoding: { type: 'png' }, __proto__: { x: 1 }, constructor: 'x' },
      { type: 'teleport' },
    ]) {
      const res = await transform(item, transformation);
      expect([res.status, res.body.error.code], JSON.stringify(transformation)).toEqual([400, 'invalid_payload']);
    }
    // No role on the set: it does not exist; another company's member neither.
    for (const key of [mo, gus]) {
      const other = await transform(item, { type: 'image', encoding: { type: 'png' } }, key);
      expect([other.status, other.body.error.code]).toEqual([404, 'media_set_not_found']);
    }
    // A Viewer grant reads, so it transforms (a thumbnail is a view of what it may read).
    const grant = await svc.call('POST', `/api/v1/filesystem/resources/${set}/roles/add`, {
      body: { principal: 'cell-acme', role: 'viewer' },
      headers: bearer(dana),
    });
    expect(grant.status, JSON.stringify(grant.body)).toBe(200);
    const viewer = await transform(item, { type: 'image', operations: [{ type: 'grayscale' }], encoding: { type: 'png' } }, mo);
    expect([viewer.status, viewer.body.data.status]).toEqual([201, 'SUCCESSFUL']);
    const status = await svc.call('GET', `${itemUrl(item)}/transform/${viewer.body.data.jobId}/status`, { headers: bearer(mo) });
    expect(status.body.data).toEqual(viewer.body.data);
  });

  it('records a job that failed on bytes that are no image, and refuses a decompression bomb from its header', async () => {
    const junk = await putItem(Buffer.from('definitely not a PNG'), 'image/png');
    const failed = await transform(junk, { type: 'image', encoding: { type: 'png' } });
    expect(failed.status, JSON.stringify(failed.body)).toBe(201);
    expect(failed.body.data).toMatchObject({ status: 'FAILED', mimeType: null, sizeBytes: null, failure: expect.any(String) });
    const missing = await result(junk, failed.body.data.jobId);
    expect([missing.status, ((await missing.json()) as { error: { code: string } }).error.code]).toEqual([
      404,
      'transformed_media_item_not_found',
    ]);

    // At the pixel limit the header is accepted (the truncated data then fails the job); one row more is refused unread.
    const limit = MEDIA_LIMITS.transformationInputPixels;
    const atLimit = await transform(await putItem(pngHeader(8000, limit / 8000), 'image/png'), {
      type: 'image',
      encoding: { type: 'png' },
    });
    expect([atLimit.status, atLimit.body.data.status]).toEqual([201, 'FAILED']);
    const bomb = await transform(await putItem(pngHeader(8000, limit / 8000 + 1), 'image/png'), {
      type: 'image',
      encoding: { type: 'png' },
    });
    expect([bomb.status, bomb.body.error.code, bomb.body.error.details]).toEqual([
      413,
      'transformation_input_too_large',
      { limitPixels: limit },
    ]);
  });

  it('refuses an item above the input size limit before reading it, and names only jobs of the item’s own content', async () => {
    const item = await putItem(await photo(), 'image/jpeg', 'jpg');
    const setSize = (size: number) =>
      svc.database.db.updateTable('media_items').set({ size }).where('id', '=', item.split('.').at(-1)!).execute();
    const job = { type: 'image', operations: [{ type: 'resize', height: 48 }], encoding: { type: 'jpeg' } };
    await setSize(MEDIA_LIMITS.transformationInputBytes);
    const atLimit = await transform(item, job);
    expect(atLimit.status, JSON.stringify(atLimit.body)).toBe(201);
    await setSize(MEDIA_LIMITS.transformationInputBytes + 1);
    const over = await transform(item, job);
    expect([over.status, over.body.error.code, over.body.error.details.limitBytes]).toEqual([
      413,
      'transformation_input_too_large',
      MEDIA_LIMITS.transformationInputBytes,
    ]);

    const other = await putItem(
      await sharp({ create: { width: 3, height: 3, channels: 3, background: '#fff' } })
        .png()
        .toBuffer(),
      'image/png',
    );
    for (const jobId of [atLimit.body.data.jobId, 'f'.repeat(64)]) {
      const status = await svc.call('GET', `${itemUrl(other)}/transform/${jobId}/status`, { headers: bearer(dana) });
      expect([status.status, status.body.error.code]).toEqual([404, 'transformation_not_found']);
    }
    const malformed = await svc.call('GET', `${itemUrl(other)}/transform/nope/status`, { headers: bearer(dana) });
    expect(malformed.status).toBe(400);
  });
});
