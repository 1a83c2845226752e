import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_LIMITS } from '../../../schemas/media.ts';
import { bearer } from '../../support/identity.ts';
import { type MediaObjectService, startMediaObjectService } from '../../support/media.ts';
import { S3_BUCKET, S3_ENV } from '../../support/s3.ts';
import type { TestService } from '../../support/service.ts';

// A 1 GiB item through an upload session on disk-backed S3 (s3rver on loopback): 64 parts of
// 16 MiB put through the API, completed, then assembled by a process of its own doing what the
// workflow's activities do, whose peak RSS (the kernel's, for the whole process) is asserted.
// About 6-7 minutes on the shared 2-core machine under load (load average ~10; the assembly
// itself 170 s when it still wrote the item again, the parts' puts most of the rest), nearly all of
// it s3rver writing the parts' 1 GiB to disk and serving it once to the assembly's read.

const ITEM_BYTES = 1024 * 1024 * 1024;
/**
 * How far the assembly may raise its process's RSS. Streaming holds what the SDK and the HTTP
 * agent buffer of the reads in flight (before composite items, also a 16 MiB part buffer of the
 * item's multipart write), and garbage V8 and the allocator give back lazily (the young generation is capped by
 * --max-semi-space-size=16 as in production), which grows with the rate of the reads. Measured:
 * +81 MiB with the assembly at 170 s (a loaded machine), +135 MiB at 64 s (a clean-clone CI run).
 * 192 MiB is three sixteenths of the item: an assembly that held the item, or a quarter of it, fails.
 */
const RSS_GROWTH_BOUND = 192 * 1024 * 1024;
const PREFIX = 'media-1gb';
const UPLOADS = '/api/v1/ontologies/cell-acme/objectTypes/vision.Clip/media/video/uploads';

let media: MediaObjectService;
let svc: TestService;
let dana: string;

beforeAll(async () => {
  media = await startMediaObjectService({ prefix: PREFIX, type: 'vision.Clip', media: 'video', id: 'c1' });
  ({ svc, dana } = media);
}, 120_000);
afterAll(() => media?.close());

/** Part `n`'s bytes: distinct per part (no two parts share a stored blob), cheap to make. */
function partBytes(n: number): Buffer {
  const bytes = Buffer.alloc(MEDIA_LIMITS.uploadPartBytes, n);
  for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32BE((i ^ (n * 2654435761)) >>> 0, i);
  return bytes;
}

describe('a 1 GiB upload', () => {
  it('is assembled on disk-backed S3 with the process’s peak RSS bounded', { timeout: 600_000 }, async () => {
    const opened = await svc.call('POST', UPLOADS, {
      body: { sizeBytes: ITEM_BYTES, mimeType: 'video/mp4', primaryKey: 'c1' },
      headers: bearer(dana),
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const id = opened.body.data.uploadId as string;
    const whole = createHash('sha256');
    const parts = ITEM_BYTES / MEDIA_LIMITS.uploadPartBytes;
    for (let n = 1; n <= parts; n++) {
      const bytes = partBytes(n);
      whole.update(bytes);
      const put = await svc.call('PUT', `${UPLOADS}/${id}/parts/${n}`, { rawBody: bytes, headers: bearer(dana) });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    const sha256 = whole.digest('hex');
    expect((await svc.call('POST', `${UPLOADS}/${id}/complete`, { headers: bearer(dana) })).body.data.state).toBe('COMPLETING');

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--max-semi-space-size=16', path.resolve('test/api/media/fixtures/assemble-upload.ts')],
      {
        env: {
          PATH: process.env.PATH ?? '',
          ...S3_ENV,
          DATABASE_URL: svc.database.url,
          S3_ENDPOINT: media.s3.endpoint,
          S3_BUCKET,
          S3_PREFIX: PREFIX,
          UPLOAD_ID: id,
        },
        maxBuffer: 1024 * 1024,
      },
    );
    const run = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(run.assembled).toEqual({ outcome: 'assembled', sha256, size: ITEM_BYTES });
    expect(run.attached).toBe('completed');
    // Reported for the record (the run's log), asserted against the bound only.
    console.info(
      `1 GiB assembly: ${run.seconds.toFixed(1)} s; RSS ${(run.rssBeforeBytes / 2 ** 20).toFixed(0)} MiB before, ` +
        `peak ${(run.peakRssBytes / 2 ** 20).toFixed(0)} MiB (bound: +${RSS_GROWTH_BOUND / 2 ** 20} MiB)`,
    );
    expect(run.peakRssBytes - run.rssBeforeBytes).toBeLessThan(RSS_GROWTH_BOUND);

    const done = (await svc.call('POST', `${UPLOADS}/${id}/complete`, { headers: bearer(dana) })).body.data;
    expect(done.state).toBe('COMPLETED');
    const { mediaSetRid, mediaItemRid } = done.mediaReference.reference.mediaSetViewItem;
    const info = await svc.call('GET', `/api/v1/mediasets/${mediaSetRid}/items/${mediaItemRid}`, { headers: bearer(dana) });
    expect(info.body.data).toMatchObject({ sizeBytes: ITEM_BYTES, sha256 });
    // Not written again: the item is the composite of its 64 parts.
    expect(media.s3.puts).not.toContain(`${PREFIX}/sha256/${sha256}`);
    const composite = await svc.database.db
      .selectFrom('media_composites')
      .select('size')
      .where('sha256', '=', Buffer.from(sha256, 'hex'))
      .executeTakeFirstOrThrow();
    expect(composite.size).toBe(ITEM_BYTES);
    const recorded = await svc.database.db
      .selectFrom('media_composite_parts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('item_sha256', '=', Buffer.from(sha256, 'hex'))
      .executeTakeFirstOrThrow();
    expect(Number(recorded.n)).toBe(parts);
  });
});
