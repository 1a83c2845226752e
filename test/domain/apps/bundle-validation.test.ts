import { describe, expect, it } from 'vitest';
import { validateBundleOffThread } from '../../../domain/apps/bundle-validation.ts';
import { WorkerPool } from '../../../domain/threads/worker-pool.ts';
import type { BundleInput, InvalidBundle, ValidBundle } from '../../../schemas/bundle/index.ts';

const ECHO = new URL('../threads/fixtures/echo-worker.ts', import.meta.url);

describe('validateBundleOffThread', () => {
  it('validates on a thread and gives the files back as Buffers', async () => {
    const result = await validateBundleOffThread(
      {
        manifest: { manifestVersion: 1, slug: 'abc', version: '1.0.0', title: 'A' },
        files: [{ path: 'index.html', encoding: 'utf8', content: '<p>hi</p>' }],
      },
      'company:a',
    );
    expect(result.ok).toBe(true);
    expect(result.ok && Buffer.isBuffer(result.files[0]?.bytes) && result.files[0].bytes.toString()).toBe('<p>hi</p>');
  });

  it('makes an analysis past the time limit the problem analysis_timeout', async () => {
    // A thread that never answers stands for an analysis that never ends.
    const stuck = new WorkerPool<BundleInput, ValidBundle | InvalidBundle>({ script: ECHO, size: 1, timeLimitMs: 200 });
    const input = { manifest: {}, files: [], busyMs: 60_000 } as BundleInput;
    expect(await validateBundleOffThread(input, 'company:a', stuck)).toEqual({
      ok: false,
      problems: [{ path: 'files', code: 'analysis_timeout', message: expect.stringContaining('200 ms') }],
      warnings: [],
    });
  });
});
