// Bundle validation (schemas/bundle) runs on worker threads: analysing uploaded code must never
// hold the event loop, whatever the input, and is stopped when it runs past a time limit.
import { type BundleInput, type InvalidBundle, type PageHosting, SDK_BASE_PATH, type ValidBundle } from '../../schemas/bundle/index.ts';
import { problem } from '../../schemas/problems.ts';
import type { PublicAddresses } from '../deps.ts';
import { SPARE_CORES, WorkerPool, WorkerTimeoutError } from '../threads/index.ts';

type Validation = ValidBundle | InvalidBundle;
/** One message to a thread: the bundle, and where this service hosts pages and the SDK. */
export type ValidationRequest = BundleInput & { hosting?: PageHosting | undefined };

/** What the pages' Content-Security-Policy is made of (api/hosting/headers.ts): the SDK on `{base_url}`, pages on the two bases. */
export function pageHostingOf(addresses: PublicAddresses): PageHosting {
  return {
    sdkBase: `${addresses.baseUrl}${SDK_BASE_PATH}`,
    pageOrigins: [...new Set([addresses.developerBase, addresses.productionBase].map((base) => new URL(base).origin))],
  };
}

/** Far above the slowest bundle measured (3 MiB of adversarial script: about 0.6 s), so only analysis gone wrong reaches it. */
const ANALYSIS_TIME_LIMIT_MS = 10_000;

const threads = new WorkerPool<ValidationRequest, Validation>({
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
export async function validateBundleOffThread(input: ValidationRequest, tenant: string, pool = threads): Promise<Validation> {
  try {
    const result = await pool.run(input, tenant);
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
