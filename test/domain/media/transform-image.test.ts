import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { type ImageJob, type ImageJobResult, imageOffThread } from '../../../domain/media/transform-media-item.ts';
import { WorkerPool } from '../../../domain/threads/worker-pool.ts';

const ECHO = new URL('../threads/fixtures/echo-worker.ts', import.meta.url);

describe('imageOffThread', () => {
  it('transforms on a thread of the pool', async () => {
    const bytes = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#f80' } })
      .png()
      .toBuffer();
    const result = await imageOffThread(
      {
        bytes,
        transformation: { type: 'image', operations: [{ type: 'resize', width: 10, fit: 'inside' }], encoding: { type: 'jpeg' } },
      },
      'company:a',
    );
    expect(result.ok).toBe(true);
    if (result.ok) expect(await sharp(Buffer.from(result.bytes)).metadata()).toMatchObject({ format: 'jpeg', width: 10, height: 5 });
  });

  it('makes a transformation past the time limit a failed job, not an error', async () => {
    // A thread that never answers stands for an image whose transformation never ends.
    const stuck = new WorkerPool<ImageJob, ImageJobResult>({ script: ECHO, size: 1, timeLimitMs: 200 });
    const job = { busyMs: 60_000 } as unknown as ImageJob;
    expect(await imageOffThread(job, 'company:a', stuck)).toEqual({
      ok: false,
      tooManyPixels: false,
      failure: 'the transformation took longer than 200 ms',
    });
  });
});
