import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';

const WORKFLOWS = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
const WORKFLOWS_DIR = fileURLToPath(new URL('../workflows/', import.meta.url));
const SHARED = fileURLToPath(new URL('./shared.ts', import.meta.url));
export const PREBUILT_BUNDLE = fileURLToPath(new URL('./dist/workflow-bundle.js', import.meta.url));

export function bundleWorkflows() {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never,
  });
}

function newestSourceMs(): number {
  const sources = [...readdirSync(WORKFLOWS_DIR).map((f) => `${WORKFLOWS_DIR}${f}`), SHARED];
  return Math.max(...sources.map((f) => statSync(f).mtimeMs));
}

/** The prebuilt bundle (`npm run build`) when it is current, else a fresh bundle of workflows/. */
export async function workflowBundle(): Promise<{ bundle: WorkflowBundleOption; prebuilt: boolean }> {
  if (existsSync(PREBUILT_BUNDLE) && statSync(PREBUILT_BUNDLE).mtimeMs >= newestSourceMs()) {
    return { bundle: { codePath: PREBUILT_BUNDLE }, prebuilt: true };
  }
  return { bundle: await bundleWorkflows(), prebuilt: false };
}
