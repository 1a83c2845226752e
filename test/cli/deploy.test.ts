import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, passwordKey, resetRateLimits, seedCompanies } from '../support/identity.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { fakeBrowser } from './support/browser-program.ts';
import { cliHome, jsonOf, runSvc } from './support/cli.ts';
import { Terminal } from './support/terminal.ts';

// The acceptance flow of the CLI against the real service on loopback, the CLI a child process
// with SVC_API_KEY set: init, deploy, test, publish, deploy a newer version (one file sent),
// publish, rollback, status; and every exit code.

let svc: TestService;
let home: Awaited<ReturnType<typeof cliHome>>;
let dev: string;
let member: string;
let env: Record<string, string>;

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  member = await passwordKey(svc, 'mo');
  home = await cliHome();
  env = { ...home.env, SVC_BASE_URL: svc.url!, SVC_API_KEY: dev };
}, 120_000);
afterAll(async () => {
  await svc?.close();
  await home?.remove();
});
beforeEach(() => resetRateLimits(svc));

const svcIn = (cwd: string, ...args: string[]) => runSvc(args, { env, cwd });
const ESC = '\u001b';

describe('svc init, deploy, test, publish, rollback, status', () => {
  // Fifteen CLI processes, each starting Node: longer than the default timeout on a busy machine.
  it('runs the whole flow in a fresh folder, sending only the changed file on the second deploy', async () => {
    const dir = path.join(home.dir, 'hello-cli');
    const init = await runSvc(['init', dir, '--json'], { env });
    expect(init.code, init.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(path.join(dir, 'plugin.json'), 'utf8'));
    expect(manifest).toEqual({
      $schema: `${svc.url}/schemas/manifest/v1.json`,
      manifestVersion: 1,
      slug: 'hello-cli',
      version: '0.1.0',
      title: 'Hello cli',
      sdk: ['semantic', 'ui'],
    });
    // The page takes the SDK and ui.css from the service it was made for, its code from a file.
    expect(await readFile(path.join(dir, 'index.html'), 'utf8')).toContain(
      `<link rel="stylesheet" href="${svc.url}/developer/sdk/v1/ui.css">`,
    );
    expect(await readFile(path.join(dir, 'app.js'), 'utf8')).toContain(`import('${svc.url}/developer/sdk/v1/semantic.js')`);
    // A bigger app: a folder of assets, plus what a deploy must leave out.
    await mkdir(path.join(dir, 'assets'), { recursive: true });
    for (let i = 0; i < 20; i += 1)
      await writeFile(path.join(dir, 'assets', `part${i}.js`), `console.log(${i}, ${JSON.stringify('x'.repeat(2000))});\n`);
    await mkdir(path.join(dir, 'node_modules', 'dep'), { recursive: true });
    await writeFile(path.join(dir, 'node_modules', 'dep', 'index.exe'), 'not sent');
    await writeFile(path.join(dir, '.env'), 'SECRET=1');

    const first = await svcIn(dir, 'deploy', '--json', '--notes', 'first');
    expect(first.code, first.stderr).toBe(0);
    expect(jsonOf(first)).toMatchObject({
      version: '0.1.0',
      build: 1,
      buildLabel: '#1',
      created: true,
      status: 'untested',
      upload: { filesSent: 22, filesReused: 0 },
      // The template passes the checks of the page's Content-Security-Policy.
      warnings: [],
    });
    expect(jsonOf(first).digest).toMatch(/^[0-9a-f]{64}$/);

    expect(jsonOf(await svcIn(dir, 'test', '--json'))).toMatchObject({ channel: 'test', action: 'enter_test', to: '0.1.0', changed: true });
    expect(jsonOf(await svcIn(dir, 'publish', '--json', '--notes', 'go'))).toMatchObject({
      channel: 'production',
      action: 'publish',
      to: '0.1.0',
    });

    await writeFile(path.join(dir, 'plugin.json'), JSON.stringify({ ...manifest, version: '0.2.0' }));
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>Hello</title><h1>Version two</h1>');
    const second = await svcIn(dir, 'deploy', '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(jsonOf(second)).toMatchObject({
      version: '0.2.0',
      buildLabel: '#2',
      status: 'untested',
      upload: { filesSent: 1, filesReused: 21 },
    });
    expect(jsonOf(second).upload.bytesSent).toBeLessThan(jsonOf(first).upload.bytesSent);

    expect((await svcIn(dir, 'test')).code).toBe(0);
    const publish = await svcIn(dir, 'publish');
    expect(publish.stdout).toMatch(/cell-acme\/hello-cli production: 0\.1\.0 → 0\.2\.0 \(published\)/);
    const rollback = await svcIn(dir, 'rollback', '0.1.0', '--json', '--notes', 'bad release');
    expect(jsonOf(rollback)).toMatchObject({ channel: 'production', action: 'rollback', from: '0.2.0', to: '0.1.0' });

    const status = jsonOf(await svcIn(dir, 'status', '--json'));
    expect(status.channels).toEqual({ test: '0.2.0', production: '0.1.0' });
    expect(status.versions.map((v: { version: string; status: string }) => [v.version, v.status])).toEqual([
      ['0.2.0', 'rolled_back'],
      ['0.1.0', 'live'],
    ]);
    expect(status.releases.at(-1)).toMatchObject({ action: 'rollback', notes: 'bad release' });
    const human = await svcIn(dir, 'status');
    expect(human.stdout).toMatch(/production:\s+0\.1\.0/);
    expect(human.stdout).toMatch(/rollback\s+0\.2\.0\s+0\.1\.0\s+dana\s+bad release/);
    // Piped output: no colour, no progress display.
    expect(human.stdout + human.stderr + publish.stdout + publish.stderr).not.toContain(ESC);

    const apps = jsonOf(await runSvc(['apps', 'list', '--json'], { env }));
    expect(apps.apps).toContainEqual(expect.objectContaining({ namespace: 'cell-acme', slug: 'hello-cli' }));
    const opened = path.join(home.dir, 'opened.txt');
    const browserEnv = { ...env, BROWSER: await fakeBrowser(home.dir, opened) };
    const open = jsonOf(await runSvc(['open', '--app', 'hello-cli', '--json', '--browser', 'test'], { env: browserEnv }));
    expect(open.addresses).toEqual({
      test: `${svc.addresses.developerBase}/cell-acme/apps/hello-cli`,
      production: `${svc.addresses.productionBase}/cell-acme/apps/hello-cli`,
    });
    await expect.poll(() => readFile(opened, 'utf8').catch(() => '')).toBe(`${open.addresses.test}\n`);
    const stored = await svc.call('GET', '/api/v1/developer/apps/cell-acme/hello-cli', { headers: bearer(dev) });
    expect(stored.body.data.versions.map((v: { fileCount: number }) => v.fileCount)).toEqual([22, 22]);
  }, 120_000);

  it('shows the upload’s progress at a terminal', async () => {
    const dir = path.join(home.dir, 'progress-app');
    await runSvc(['init', dir], { env });
    const t = await Terminal.start(['deploy', dir], env, home.dir);
    try {
      expect(await t.exitCode()).toBe(0);
      const screen = await t.screen();
      expect(screen).toMatch(/Uploaded \d+\.\d KiB/);
      expect(screen).toMatch(/Deployed cell-acme\/progress-app 0\.1\.0 as build #1/);
    } finally {
      await t.close();
    }
  });

  it('at a terminal, offers the next free patch number when the version holds other content', async () => {
    const dir = path.join(home.dir, 'prompted');
    await runSvc(['init', dir], { env });
    expect((await svcIn(dir, 'deploy')).code).toBe(0);
    const manifestFile = path.join(dir, 'plugin.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    // 0.1.1 is taken too (uploaded from elsewhere): the offer skips it.
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>two</title>');
    await writeFile(manifestFile, JSON.stringify({ ...manifest, version: '0.1.1' }));
    expect((await svcIn(dir, 'deploy')).code).toBe(0);
    await writeFile(manifestFile, JSON.stringify(manifest));
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>three</title>');

    const declined = await Terminal.start(['deploy', dir], env, home.dir);
    try {
      await declined.waitFor(/0\.1\.0 already holds different content\. Deploy as 0\.1\.2\? \[Y\/n\]/);
      await declined.type('n');
      expect(await declined.exitCode()).toBe(1);
      expect(await declined.screen()).toMatch(/svc deploy --bump patch deploys it as 0\.1\.2/);
    } finally {
      await declined.close();
    }
    expect(JSON.parse(await readFile(manifestFile, 'utf8')).version).toBe('0.1.0');

    const accepted = await Terminal.start(['deploy', dir], env, home.dir);
    try {
      await accepted.waitFor(/Deploy as 0\.1\.2\? \[Y\/n\]/);
      await accepted.press('Enter');
      expect(await accepted.exitCode()).toBe(0);
      const screen = await accepted.screen();
      expect(screen).toMatch(/Version raised 0\.1\.0 → 0\.1\.2 in plugin\.json/);
      expect(screen).toMatch(/Deployed cell-acme\/prompted 0\.1\.2 as build #3/);
    } finally {
      await accepted.close();
    }
    expect(JSON.parse(await readFile(manifestFile, 'utf8'))).toEqual({ ...manifest, version: '0.1.2' });
    const versions = (await svc.call('GET', '/api/v1/developer/apps/cell-acme/prompted', { headers: bearer(dev) })).body.data.versions;
    expect(versions.map((v: { version: string }) => v.version)).toEqual(['0.1.2', '0.1.1', '0.1.0']);
  });

  it('--dry-run deploys nothing', async () => {
    const dir = path.join(home.dir, 'dry-app');
    await runSvc(['init', dir], { env });
    const dry = await svcIn(dir, 'deploy', '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(jsonOf(dry)).toMatchObject({ dryRun: true });
    // The service's warnings, printed: here what the page's Content-Security-Policy will block.
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>dry</title><script>go()</script>');
    const warned = await svcIn(dir, 'deploy', '--dry-run');
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stdout).toMatch(
      /^warning: {2}files\[\d\]\.content: index\.html has 1 inline <script> element\(s\), the first at line 1, .* \(inline_script_blocked\)$/m,
    );
    expect((await svc.call('GET', '/api/v1/developer/apps/cell-acme/dry-app', { headers: bearer(dev) })).status).toBe(404);
  });
});

describe('exit codes and errors', () => {
  it('3 without a credential, for every command but login, logout, help and version', async () => {
    const bare = { ...home.env, SVC_BASE_URL: svc.url! };
    for (const args of [
      ['whoami'],
      ['keys', 'list'],
      ['deploy'],
      ['status', '--app', 'x'],
      ['apps', 'list'],
      ['init', path.join(home.dir, 'nope')],
    ]) {
      const run = await runSvc(args, { env: bare });
      expect([args, run.code]).toEqual([args, 3]);
    }
    const json = await runSvc(['whoami', '--json'], { env: bare });
    expect(jsonOf(json).error.code).toBe('not_logged_in');
    expect((await runSvc(['--help'], { env: bare })).code).toBe(0);
    const version = await runSvc(['--version'], { env: bare });
    expect(version.stdout.trim()).toBe(JSON.parse(await readFile('version.json', 'utf8')).version);
    expect((await runSvc(['logout'], { env: bare })).code).toBe(0);
  });

  it('3 when the service refuses the key (revoked), with the server’s code and request id', async () => {
    const key = await passwordKey(svc, 'dana');
    const list = await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(key) });
    const keyId = list.body.data.keys.find((k: { current: boolean }) => k.current).keyId;
    expect((await runSvc(['keys', 'revoke', keyId], { env: { ...env, SVC_API_KEY: key } })).code).toBe(0);
    const run = await runSvc(['whoami'], { env: { ...env, SVC_API_KEY: key } });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/Error: unauthorized: .+\n\s+request id: \S+/);
  });

  it('2 for parameter errors and a bundle that fails validation locally (nothing is sent)', async () => {
    expect((await runSvc(['deploy', '--no-such-option'], { env })).code).toBe(2);
    expect((await runSvc(['rollback'], { env })).code).toBe(2);
    expect((await runSvc(['open', '--app', 'a/b/c'], { env })).code).toBe(2);
    expect((await runSvc(['open', '--app', 'hello-cli', '--browser', 'staging'], { env })).code).toBe(2);
    const dir = path.join(home.dir, 'bad-app');
    await runSvc(['init', dir], { env });
    await writeFile(path.join(dir, 'tool.exe'), 'MZ');
    const run = await svcIn(dir, 'deploy');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /bundle_invalid: The bundle has 1 problem\(s\); nothing was sent\.\n\s+files\[2\]\.path: "tool\.exe": "\.exe" is not an allowed type/,
    );
    expect((await svc.call('GET', '/api/v1/developer/apps/cell-acme/bad-app', { headers: bearer(dev) })).status).toBe(404);
    expect((await runSvc(['deploy', path.join(home.dir, 'missing')], { env })).code).toBe(2);
  });

  it('1 for refusals: publishing an untested version, a version conflict, a member deploying', async () => {
    const dir = path.join(home.dir, 'refused');
    await runSvc(['init', dir], { env });
    expect((await svcIn(dir, 'deploy')).code).toBe(0);
    const untested = await svcIn(dir, 'publish', '0.1.0');
    expect(untested.code).toBe(1);
    expect(untested.stderr).toMatch(/Error: conflict: .*\n\s+request id: \S+/);
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>changed</title>');
    // Without a terminal (and with --json) no question: the service's refusal, naming --bump.
    const conflict = await svcIn(dir, 'deploy', '--json');
    expect(conflict.code).toBe(1);
    expect(jsonOf(conflict)).toMatchObject({
      ok: false,
      error: {
        code: 'version_conflict',
        message: expect.stringContaining('svc deploy --bump patch deploys it as 0.1.1'),
        requestId: expect.any(String),
        details: { version: '0.1.0', build: 1, next: '0.1.1' },
      },
    });
    const piped = await svcIn(dir, 'deploy');
    expect([piped.code, piped.stderr]).toEqual([
      1,
      expect.stringMatching(/version_conflict: Version 0\.1\.0 already holds different content \(build #1\): raise the version/),
    ]);
    expect(JSON.parse(await readFile(path.join(dir, 'plugin.json'), 'utf8')).version).toBe('0.1.0');
    const asMember = await runSvc(['deploy', dir], { env: { ...env, SVC_API_KEY: member } });
    expect(asMember.code).toBe(1);
    expect(asMember.stderr).toMatch(/forbidden/);
  });

  it('1 when the service cannot be reached', async () => {
    const run = await runSvc(['whoami', '--base-url', 'http://127.0.0.1:9'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: unreachable: cannot reach http:\/\/127\.0\.0\.1:9: /);
  });
});
