import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, resetRateLimits } from '../support/identity.ts';
import type { TestService } from '../support/service.ts';
import { type cliHome, jsonOf, runSvc } from './support/cli.ts';
import { startCliService } from './support/cli-service.ts';

// Issue 35, Deliver 2: every command that moves a channel prints the address it changed, status
// shows both, `open --browser` says when no browser can be opened, `deploy --bump` raises the
// manifest's version, and `svc test` promotes what this folder uploaded. The CLI is a child
// process against the real service on loopback.

let cli: Awaited<ReturnType<typeof startCliService>>;
let svc: TestService;
let home: Awaited<ReturnType<typeof cliHome>>;
let env: Record<string, string>;
let dev: string;
let testAddress: string;
let productionAddress: string;

beforeAll(async () => {
  cli = await startCliService();
  ({ svc, home, env, key: dev } = cli);
  testAddress = `${svc.addresses.developerBase}/cell-acme/apps/where-app`;
  productionAddress = `${svc.addresses.productionBase}/cell-acme/apps/where-app`;
}, 120_000);
afterAll(() => cli?.close());
beforeEach(() => resetRateLimits(svc));

describe('addresses of channel moves', () => {
  it('svc test, publish and rollback print the address they changed (was a status line only); status shows both', async () => {
    const dir = path.join(home.dir, 'where-app');
    const svcIn = (...args: string[]) => runSvc(args, { env, cwd: dir });
    expect((await runSvc(['init', dir], { env })).code).toBe(0);
    expect((await svcIn('deploy')).code).toBe(0);

    const test = await svcIn('test');
    expect(test.code, test.stderr).toBe(0);
    expect(test.stdout).toContain(`\nTest: ${testAddress}\n`);
    const publish = await svcIn('publish', '--json');
    expect(jsonOf(publish)).toMatchObject({ channel: 'production', to: '0.1.0', address: productionAddress });
    const humanPublish = await svcIn('publish');
    expect(humanPublish.stdout).toMatch(/already at 0\.1\.0; nothing changed\.\nProduction: (\S+)\n$/);
    expect(humanPublish.stdout).toContain(`Production: ${productionAddress}\n`);

    const rollback = await svcIn('rollback', '0.1.0', '--json');
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(jsonOf(rollback)).toMatchObject({ channel: 'production', address: productionAddress });

    const status = await svcIn('status');
    expect(status.stdout).toMatch(new RegExp(`test:\\s+0\\.1\\.0\\s+${literal(testAddress)}\\n`));
    expect(status.stdout).toMatch(new RegExp(`production:\\s+0\\.1\\.0\\s+${literal(productionAddress)}\\n`));
  });

  it('svc status shows both addresses before anything is in a channel', async () => {
    const dir = path.join(home.dir, 'fresh-app');
    expect((await runSvc(['init', dir], { env })).code).toBe(0);
    expect((await runSvc(['deploy'], { env, cwd: dir })).code).toBe(0);
    const status = await runSvc(['status'], { env, cwd: dir });
    expect(status.stdout).toMatch(new RegExp(`test:\\s+-\\s+${literal(`${svc.addresses.developerBase}/cell-acme/apps/fresh-app`)}\\n`));
    expect(status.stdout).toMatch(
      new RegExp(`production:\\s+-\\s+${literal(`${svc.addresses.productionBase}/cell-acme/apps/fresh-app`)}\\n`),
    );
  });
});

describe('svc open --browser without a desktop', () => {
  it('says on stderr that no browser can be opened and exits 1, still printing the address (was exit 0, silent)', async () => {
    // cliHome's environment has no DISPLAY, WAYLAND_DISPLAY or BROWSER: a machine without a desktop.
    const run = await runSvc(['open', '--app', 'where-app', '--browser', 'test'], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`test:        ${testAddress}`);
    expect(run.stderr).toMatch(/Error: no_browser: No browser can be opened here .*: open \S+ yourself\./);
    expect(run.stderr).toContain(testAddress);

    const json = await runSvc(['open', '--app', 'where-app', '--browser', '--json'], { env });
    expect(json.code).toBe(1);
    expect(jsonOf(json)).toMatchObject({
      ok: false,
      error: { code: 'no_browser', details: { addresses: { test: testAddress, production: productionAddress } } },
    });
  });

  it('without --browser it only shows the addresses and exits 0', async () => {
    const run = await runSvc(['open', '--app', 'where-app'], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(`production:  ${productionAddress}`);
  });
});

describe('svc deploy --bump', () => {
  const versionIn = async (dir: string) => JSON.parse(await readFile(path.join(dir, 'plugin.json'), 'utf8')).version;

  it('raises the version in plugin.json, writes it back, uploads it and prints it (was: raise by hand or version_conflict)', async () => {
    const dir = path.join(home.dir, 'bump-app');
    const svcIn = (...args: string[]) => runSvc(args, { env, cwd: dir });
    expect((await runSvc(['init', dir], { env })).code).toBe(0);
    expect((await svcIn('deploy')).code).toBe(0);
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>Hello</title><h1>Two</h1>');

    const patch = await svcIn('deploy', '--bump', 'patch');
    expect(patch.code, patch.stderr).toBe(0);
    expect(patch.stdout).toContain('Version raised 0.1.0 → 0.1.1 in plugin.json.');
    expect(patch.stdout).toMatch(/version:\s+0\.1\.1\n/);
    expect(await versionIn(dir)).toBe('0.1.1');

    const pre = await svcIn('deploy', '--bump', 'prerelease', '--json');
    expect(jsonOf(pre)).toMatchObject({ version: '0.1.2-0', bump: { from: '0.1.1', to: '0.1.2-0', file: 'plugin.json' } });
    expect(jsonOf(await svcIn('deploy', '--bump', 'prerelease', '--json')).version).toBe('0.1.2-1');
    expect(await versionIn(dir)).toBe('0.1.2-1');

    const app = await svc.call('GET', '/api/v1/developer/apps/cell-acme/bump-app', { headers: bearer(dev) });
    expect(app.body.data.versions.map((v: { version: string }) => v.version)).toEqual(['0.1.2-1', '0.1.2-0', '0.1.1', '0.1.0']);
  });

  it('leaves the manifest file as it was with --dry-run and when the bundle is refused', async () => {
    const dir = path.join(home.dir, 'bump-dry');
    expect((await runSvc(['init', dir], { env })).code).toBe(0);
    const dry = await runSvc(['deploy', '--bump', 'minor', '--dry-run', '--json'], { env, cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(jsonOf(dry)).toMatchObject({ dryRun: true, bump: { from: '0.1.0', to: '0.2.0' } });
    expect(await versionIn(dir)).toBe('0.1.0');

    await writeFile(path.join(dir, 'tool.exe'), 'MZ');
    const refused = await runSvc(['deploy', '--bump', 'major'], { env, cwd: dir });
    expect(refused.code).toBe(2);
    expect(await versionIn(dir)).toBe('0.1.0');
    expect((await runSvc(['deploy', '--bump', 'huge'], { env, cwd: dir })).code).toBe(2);
  });
});

describe('svc test with no argument', () => {
  it('promotes the version this folder last uploaded, not a newer upload from a copy of the folder (was: the copy’s newest)', async () => {
    const first = path.join(home.dir, 'twin');
    const copy = path.join(home.dir, 'twin-copy');
    expect((await runSvc(['init', first], { env })).code).toBe(0);
    expect((await runSvc(['deploy'], { env, cwd: first })).code).toBe(0);
    await cp(first, copy, { recursive: true });
    await writeFile(path.join(copy, 'index.html'), '<!doctype html><title>Copy</title><h1>Copy</h1>');
    expect((await runSvc(['deploy', '--bump', 'minor'], { env, cwd: copy })).code).toBe(0);

    const fromFirst = await runSvc(['test', '--json'], { env, cwd: first });
    expect(fromFirst.code, fromFirst.stderr).toBe(0);
    expect(jsonOf(fromFirst)).toMatchObject({ channel: 'test', to: '0.1.0', changed: true });
    expect(jsonOf(await runSvc(['test', '--json'], { env, cwd: copy }))).toMatchObject({ from: '0.1.0', to: '0.2.0' });
    expect(await readFile(path.join(first, '.svc', 'state.json'), 'utf8')).toContain('"version": "0.1.0"');
  });

  it('says so and takes the newest upload when the folder uploaded nothing, or with --app', async () => {
    const uploader = path.join(home.dir, 'loner');
    const fresh = path.join(home.dir, 'loner-fresh');
    expect((await runSvc(['init', uploader], { env })).code).toBe(0);
    expect((await runSvc(['deploy'], { env, cwd: uploader })).code).toBe(0);
    expect((await runSvc(['deploy', '--bump', 'patch'], { env, cwd: uploader })).code).toBe(0);
    expect((await runSvc(['init', fresh], { env })).code).toBe(0);
    await writeFile(
      path.join(fresh, 'plugin.json'),
      JSON.stringify({ manifestVersion: 1, slug: 'loner', version: '9.0.0', title: 'Loner' }),
    );

    const run = await runSvc(['test', '--json'], { env, cwd: fresh });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`This folder has uploaded nothing to ${svc.url} yet: the newest upload of cell-acme/loner enters test.`);
    expect(jsonOf(run)).toMatchObject({ to: '0.1.1', changed: true });

    expect(jsonOf(await runSvc(['test', '0.1.0', '--app', 'loner', '--json'], { env }))).toMatchObject({ to: '0.1.0' });
    const byApp = await runSvc(['test', '--app', 'loner', '--json'], { env });
    expect(byApp.stderr).toBe('');
    expect(jsonOf(byApp)).toMatchObject({ from: '0.1.0', to: '0.1.1' });
  });
});

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
