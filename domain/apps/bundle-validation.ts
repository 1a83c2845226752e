// Bundle validation (schemas/bundle) runs on worker threads: analysing uploaded code must never
// hold the event loop, whatever the input, and is stopped when it runs past a time limit.
import type { BundleInput, InvalidBundle, ValidBundle } from '../../schemas/bundle/index.ts';
import { problem } from '../../schemas/problems.ts';
import { SPARE_CORES, WorkerPool, WorkerTimeoutError } from '../threads/index.ts';

type Validation = ValidBundle | InvalidBundle;

/** Far above the slowest bundle measured (3 MiB of adversarial script: about 0.6 s), so only analysis gone wrong reaches it. */
const ANALYSIS_TIME_LIMIT_MS = 10_000;

const threads = new WorkerPool<BundleInput, Validation>({
  script: new URL('./validate-bundle-worker.ts', import.meta.url),
  size: SPARE_CORES,
  timeLimitMs: ANALYSIS_TIME_LIMIT_MS,
});

/**
 * validateBundle on a worker thread. Running past the time limit makes the bundle invalid
 * (problem `analysis_timeout`, so 422 rather than a 503 that invites a retry): the limit starts
 * when a thread takes the bundle and is far above what any bundle needs, so only its content
 * can reach it, and would again.
 */
export async function validateBundleOffThread(input: BundleInput, pool = threads): Promise<Validation> {
  try {
    const result = await pool.run(input);
    if (!result.ok) return result;
    // Buffers cross the thread boundary as plain Uint8Arrays.
    const files = result.files.map((file) => ({
      ...file,
      bytes: Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength),
    }));
    return { ...result, files };
  } catch (error) {
    if (!(error instanceof WorkerTimeoutError)) throw error;
    const message = `analysing the files took longer than ${pool.timeLimitMs} ms; simplify or split the largest scripts`;
    return { ok: false, problems: [problem('files', 'analysis_timeout', message)], warnings: [] };
  }
}
