import { execFile } from 'node:child_process';
import { access, constants, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import versionFile from '../../version.json' with { type: 'json' };
import { PASSWORD, resetRateLimits, seedCompanies } from '../support/identity.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { cliHome } from './support/cli.ts';
import { Terminal } from './support/terminal.ts';

// The CLI as people install it (issue 35, deliver 1): `npm pack` of the workspace package (its
// prepack builds cli/dist/svc.js), `npm install -g` of the tarball into an empty prefix, offline,
// and the installed `svc` on the machine's Node 20 (the oldest LTS it supports) and on Node 24:
// version, help, a password login at a terminal, and commands against the real service.

const exec = promisify(execFile);

let scratch: string;
let prefix: string;
let packed: { filename: string; files: { path: string }[] };
let svc: TestService;
const cleanups: (() => Promise<void>)[] = [];

const executable = (file: string) =>
  access(file, constants.X_OK).then(
    () => true,
    () => false,
  );

/** The machine's own Node: the first `node` on PATH outside node_modules (npm and vitest put the pinned one first). */
async function machineNode(): Promise<string> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const node = path.join(dir, 'node');
    if (!dir.split(path.sep).includes('node_modules') && (await executable(node))) return node;
  }
  throw new Error('no node on PATH outside node_modules');
}

async function packAndInstall() {
  scratch = await mkdtemp(path.join(tmpdir(), 'svc-cli-package-'));
  cleanups.push(() => rm(scratch, { recursive: true, force: true }));
  const pack = await exec('npm', ['pack', '--workspace', '@svc/cli', '--pack-destination', scratch, '--json']);
  [packed] = JSON.parse(pack.stdout);
  prefix = path.join(scratch, 'prefix');
  // As on another machine: npm on the machine's Node, none of the checkout's npm settings (neither
  // its .npmrc, from the scratch folder, nor the npm_config_* variables npm hands to the test run);
  // --offline because a package without dependencies needs nothing from a registry.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
  env.PATH = `${path.dirname(await machineNode())}${path.delimiter}${env.PATH}`;
  const args = ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', path.join(scratch, packed.filename)];
  await exec('npm', args, { cwd: scratch, env });
}

beforeAll(async () => {
  [svc] = await Promise.all([startTestService(), packAndInstall()]);
  await seedCompanies(svc);
}, 120_000);
afterAll(async () => {
  await svc?.close();
  for (const cleanup of cleanups.reverse()) await cleanup();
});
beforeEach(() => resetRateLimits(svc));

describe('the packed CLI', () => {
  it('is the bin, the bundle it runs and the manifest, named by the version of version.json, with no dependencies to install', async () => {
    expect(packed.filename).toBe(`svc-cli-${versionFile.version}.tgz`);
    expect(packed.files.map((f) => f.path).sort()).toEqual(['dist/svc.js', 'package.json', 'svc.mjs']);
    const manifest = JSON.parse(await readFile(path.join(prefix, 'lib', 'node_modules', '@svc', 'cli', 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@svc/cli', version: versionFile.version, bin: { svc: 'svc.mjs' } });
    expect(manifest.dependencies).toBeUndefined();
  });
});

describe.each([20, 24])('the installed svc on Node %i', (major) => {
  let env: Record<string, string>;
  let home: string;
  // As a user runs it: the link npm put in the prefix's bin, whose `#!/usr/bin/env node` finds
  // this Node on PATH. A run that does not exit 0 fails the test with its stderr.
  const svcBin = () => path.join(prefix, 'bin', 'svc');
  const installedSvc = (args: string[], cwd?: string) => exec(svcBin(), args, { env, cwd });

  beforeAll(async () => {
    const node = major === 24 ? process.execPath : await machineNode();
    const h = await cliHome();
    cleanups.push(h.remove);
    home = h.dir;
    env = { ...h.env, PATH: `${path.dirname(node)}${path.delimiter}${h.env.PATH}`, SVC_BASE_URL: svc.url! };
    const { stdout } = await exec('node', ['--version'], { env });
    expect(stdout, `the Node found on PATH for ${major}`).toMatch(new RegExp(`^v${major}\\.`));
  });

  it('prints the version of version.json', async () => {
    expect((await installedSvc(['--version'])).stdout.trim()).toBe(versionFile.version);
  });

  it('prints the help of svc login', async () => {
    const { stdout } = await installedSvc(['login', '--help']);
    expect(stdout).toMatch(/^Usage: svc login \[options\]/);
    expect(stdout).toContain('--password');
  });

  it('logs in with a password at a terminal, then deploys an app it initialised', async () => {
    const t = await Terminal.start(['login', '--password'], env, home, [svcBin()]);
    cleanups.push(() => t.close());
    await t.waitFor(/Account \(username or email\)/);
    await t.type('dana');
    await t.press('Enter');
    await t.waitFor(/Password/);
    await t.type(PASSWORD);
    await t.press('Enter');
    expect(await t.exitCode(), await t.screen()).toBe(0);
    expect(await t.screen()).toMatch(/Logged in to .* as dana for Acme \(cell-acme\), developer/);

    const whoami = JSON.parse((await installedSvc(['whoami', '--json'])).stdout);
    expect(whoami).toMatchObject({ account: { username: 'dana' }, company: { cellId: 'cell-acme' } });

    const dir = path.join(home, `hello-node${major}`);
    await installedSvc(['init', dir, '--json']);
    const deploy = JSON.parse((await installedSvc(['deploy', '--json'], dir)).stdout);
    expect(deploy).toMatchObject({ version: '0.1.0', build: 1, created: true, status: 'untested' });
  });
});
