// Builds the Temporal Web UI (Temporal's own @temporalio/ui, as a static SvelteKit app) from the
// inputs in ui/ into ui/build. The UI's build tools have their own package.json and lock file in
// ui/ so they never touch the workspace's dependencies. A stamp of the inputs skips rebuilds;
// a lock file keeps concurrent builds (npm install plus a test run) from overlapping.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const uiDir = fileURLToPath(new URL('./ui/', import.meta.url));
/** Where the built single-page app is (index.html and _app/). */
export const uiBuildDir = join(uiDir, 'build');
const stampFile = join(uiBuildDir, '.inputs-sha256');
const installStamp = join(uiDir, 'node_modules', '.lock-sha256');
const lockFile = join(uiDir, '.build.lock');
/** The command that builds the UI, for messages. */
export const uiBuildCommand = 'npm run build:ui -w @svc/temporal-dev';

/** The @temporalio/ui version the UI is built from (pinned in ui/package.json). */
export function uiVersion(): string {
  const manifest = JSON.parse(readFileSync(join(uiDir, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  return manifest.devDependencies['@temporalio/ui']!;
}

/** True when ui/build holds a build of the current inputs. */
export function uiBuildIsCurrent(): boolean {
  return existsSync(join(uiBuildDir, 'index.html')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === inputsHash();
}

function inputsHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'build', '.svelte-kit'].includes(entry.name)) walk(path);
      } else if (entry.name !== '.build.lock') {
        hash.update(`${relative(uiDir, path)}\0`).update(readFileSync(path));
      }
    }
  };
  walk(uiDir);
  return hash.digest('hex');
}

/** Installs the UI's build tools (when its lock file changed) and builds it, unless the build is current. */
export async function buildUi(log: (line: string) => void = (line) => console.error(line)): Promise<void> {
  await withLock(log, () => {
    if (uiBuildIsCurrent()) return;
    const lockHash = createHash('sha256')
      .update(readFileSync(join(uiDir, 'package-lock.json')))
      .digest('hex');
    if (!existsSync(installStamp) || readFileSync(installStamp, 'utf8') !== lockHash) {
      log('temporal-dev: installing the Web UI build tools (ui/package-lock.json)');
      run('npm', ['ci', '--no-audit', '--no-fund'], 'npm ci in ui/');
      writeFileSync(installStamp, lockHash);
    }
    log('temporal-dev: building the Web UI (about 30 s)');
    const started = Date.now();
    run(process.execPath, [join(uiDir, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], 'vite build');
    writeFileSync(stampFile, inputsHash());
    log(`temporal-dev: Web UI built in ${Math.round((Date.now() - started) / 1000)} s (${uiBuildDir})`);
  });
}

function run(command: string, args: string[], what: string): void {
  // npm hands its own settings (workspace, omit, ...) to scripts as npm_* variables; the UI's
  // install is a separate project and must not inherit them.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
  const result = spawnSync(command, args, { cwd: uiDir, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.error) throw new Error(`${what} failed: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${what} failed with exit code ${result.status ?? result.signal}`);
}

async function withLock(log: (line: string) => void, work: () => void): Promise<void> {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(lockFile, 'utf8'));
      if (!isAlive(owner)) {
        rmSync(lockFile, { force: true }); // left by a build that died
        continue;
      }
      if (Date.now() > deadline) throw new Error(`another Web UI build (pid ${owner}) holds ${lockFile}`);
      log(`temporal-dev: waiting for the Web UI build of pid ${owner}`);
      await sleep(2000);
    }
  }
  try {
    work();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Run by the root package's `postinstall`: builds the UI so a fresh clone has it after `npm ci`.
 * A failure is reported, not fatal: the server runs without the UI and its UI port says how to build.
 */
export async function buildUiAfterInstall(): Promise<void> {
  try {
    await buildUi();
  } catch (err) {
    console.error(`temporal-dev: the Web UI was not built (${(err as Error).message}); run \`${uiBuildCommand}\` to retry`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildUi();
