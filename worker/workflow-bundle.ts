import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';

const WORKFLOWS = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
const WORKFLOWS_DIR = fileURLToPath(new URL('../workflows/', import.meta.url));
const KEYS = fileURLToPath(new URL('../schemas/workflow-keys.ts', import.meta.url));
export const PREBUILT_BUNDLE = fileURLToPath(new URL('./dist/workflow-bundle.js', import.meta.url));

export function bundleWorkflows() {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never,
  });
}

function newestSourceMs(): number {
  const sources = [...readdirSync(WORKFLOWS_DIR, { recursive: true }).map((f) => `${WORKFLOWS_DIR}${f}`), KEYS];
  return Math.max(...sources.map((f) => statSync(f).mtimeMs));
}

const isCurrent = (file: string) => existsSync(file) && statSync(file).mtimeMs >= newestSourceMs();

/**
 * bundleWorkflows in a child process (build-bundle.ts): webpack, SWC's native code and what they
 * allocate leave with it. Bundled in the worker's own process, they kept about 150 MB resident
 * for the life of the process (stop 37).
 */
function bundleInChildProcess(): Promise<{ code: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./build-bundle.ts', import.meta.url)), [], {
      execArgv: [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let code: string | undefined;
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.once('message', (message) => {
      code = message as string;
    });
    child.once('error', reject);
    child.once('exit', (status) => {
      if (code !== undefined) resolve({ code });
      else reject(new Error(`bundling the workflows failed (exit ${status}): ${stderr}`));
    });
  });
}

/**
 * The prebuilt bundle (`npm run build`) when it is current; else the one an earlier start left
 * in `cacheDir` (per workflow SDK version) when current; else a fresh bundle of workflows/, made
 * in a child process and written there so the next start skips bundling (about 2 s). Writing is
 * best effort.
 */
export async function workflowBundle(
  opts: { cacheDir?: string | undefined; onCacheError?: (err: unknown) => void; prebuiltPath?: string } = {},
): Promise<{ bundle: WorkflowBundleOption; prebuilt: boolean | 'cached' }> {
  const { cacheDir, onCacheError, prebuiltPath = PREBUILT_BUNDLE } = opts;
  if (isCurrent(prebuiltPath)) return { bundle: { codePath: prebuiltPath }, prebuilt: true };
  const sdk = (createRequire(import.meta.url)('@temporalio/workflow/package.json') as { version: string }).version;
  const cached = cacheDir && path.join(cacheDir, `workflow-bundle-${sdk}.js`);
  if (cached && isCurrent(cached)) return { bundle: { codePath: cached }, prebuilt: 'cached' };
  const bundle = await bundleInChildProcess();
  if (cached) {
    try {
      mkdirSync(cacheDir, { recursive: true });
      writeFileSync(`${cached}.tmp`, bundle.code);
      renameSync(`${cached}.tmp`, cached);
    } catch (err) {
      onCacheError?.(err);
    }
  }
  return { bundle, prebuilt: false };
}
