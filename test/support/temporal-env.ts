// One way to get a TestWorkflowEnvironment for tests. By default it runs our embedded server
// (infra/temporal-dev) through the SDK's `existing-path` launcher; with
// SVC_TEMPORAL_TEST_SERVER=download it uses the official downloaded servers instead (needs internet).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { defineSearchAttributeKey } from '@temporalio/common';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SERVER_DIR = join(ROOT, 'infra/temporal-dev');
const LAUNCHER = join(SERVER_DIR, 'bin/temporal-dev');
export const TEMPORAL_DEV_BUILD_COMMAND = 'npx tsc -p infra/temporal-dev/tsconfig.json';

export type TemporalEnvFlavour = 'local' | 'time-skipping';

export interface TemporalEnvOptions {
  /** Custom search attributes to register on the server (local flavour). */
  searchAttributes?: ReturnType<typeof defineSearchAttributeKey>[];
}

export function usesDownloadedServer(): boolean {
  return process.env.SVC_TEMPORAL_TEST_SERVER === 'download';
}

export async function createTemporalEnv(flavour: TemporalEnvFlavour, options: TemporalEnvOptions = {}): Promise<TestWorkflowEnvironment> {
  if (usesDownloadedServer()) {
    return flavour === 'local'
      ? TestWorkflowEnvironment.createLocal({ server: { searchAttributes: options.searchAttributes } })
      : TestWorkflowEnvironment.createTimeSkipping();
  }
  ensureTemporalDevBuilt();
  // The launcher runs the compiled server with this same Node (the system one may be too old).
  process.env.TEMPORAL_DEV_NODE = process.execPath;
  const executable = { type: 'existing-path' as const, path: LAUNCHER };
  return flavour === 'local'
    ? TestWorkflowEnvironment.createLocal({ server: { executable, searchAttributes: options.searchAttributes } })
    : TestWorkflowEnvironment.createTimeSkipping({ server: { executable } });
}

/** Builds infra/temporal-dev/dist when it is missing or older than the sources. */
export function ensureTemporalDevBuilt(): void {
  const cli = join(SERVER_DIR, 'dist/cli.js');
  if (existsSync(cli) && newestSource() <= statSync(cli).mtimeMs) return;
  withBuildLock(() => {
    if (existsSync(cli) && newestSource() <= statSync(cli).mtimeMs) return;
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(SERVER_DIR, 'tsconfig.json')], {
        cwd: ROOT,
        stdio: 'pipe',
      });
    } catch (err) {
      const out = (err as { stdout?: Buffer }).stdout?.toString() ?? String(err);
      throw new Error(`temporal-dev build failed; run \`${TEMPORAL_DEV_BUILD_COMMAND}\` to see why:\n${out}`);
    }
  });
}

function newestSource(): number {
  return Math.max(...readdirSync(SERVER_DIR).filter((f) => f.endsWith('.ts')).map((f) => statSync(join(SERVER_DIR, f)).mtimeMs));
}

/** Test files run in parallel processes; only one of them may compile at a time. */
function withBuildLock(build: () => void): void {
  const lock = join(SERVER_DIR, '.build-lock');
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - started > 60_000) rmSync(lock, { recursive: true, force: true });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
