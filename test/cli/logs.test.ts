import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, passwordKey, resetRateLimits } from '../support/identity.ts';
import type { TestService } from '../support/service.ts';
import { type cliHome, jsonOf, runSvc, startSvc } from './support/cli.ts';
import { startCliService } from './support/cli-service.ts';

// Issue 35, Deliver 3: `svc logs` reads the app log, filtered by kind and time, and follows it. The
// CLI is a child process against the real service on loopback.

let cli: Awaited<ReturnType<typeof startCliService>>;
let svc: TestService;
let home: Awaited<ReturnType<typeof cliHome>>;
let env: Record<string, string>;
let dev: string;
let dir: string;
const svcIn = (...args: string[]) => runSvc(args, { env, cwd: dir });
const track = (name: string, data: Record<string, unknown>) =>
  svc.call('POST', '/api/v1/developer/log/cell-acme/events', {
    body: { slug: 'logged-app', events: [{ kind: 'usage', name, data }] },
    headers: bearer(dev),
  });

beforeAll(async () => {
  cli = await startCliService();
  ({ svc, home, env, key: dev } = cli);
  dir = path.join(home.dir, 'logged-app');
  expect((await runSvc(['init', dir], { env })).code).toBe(0);
  expect((await svcIn('deploy')).code).toBe(0);
  expect((await svcIn('test')).code).toBe(0);
  expect((await track('clicked', { button: 'save' })).status).toBe(201);
}, 120_000);
afterAll(() => cli?.close());
beforeEach(() => resetRateLimits(svc));

// Each test runs the CLI several times, a Node start each: room for a loaded machine.
describe('svc logs', { timeout: 90_000 }, () => {
  it('shows the folder’s app log oldest first: releases and usage, with who and which version', async () => {
    const json = await svcIn('logs', '--json');
    expect(json.code, json.stderr).toBe(0);
    const { app, events } = jsonOf(json);
    expect(app).toEqual({ namespace: 'cell-acme', slug: 'logged-app' });
    expect(events.map((e: { kind: string; name: string }) => `${e.kind}/${e.name}`)).toEqual([
      'release/deploy',
      'release/enter_test',
      'usage/clicked',
    ]);

    const human = await svcIn('logs');
    expect(human.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}release\/deploy +dana +0\.1\.0 +build=1\n/);
    expect(human.stdout).toMatch(/ {2}release\/enter_test +dana +0\.1\.0 test\n/);
    expect(human.stdout).toMatch(/ {2}usage\/clicked +dana +- +button=save\n$/);
  });

  it('filters by --kind and --since, and keeps the newest --limit records', async () => {
    const usage = jsonOf(await runSvc(['logs', '--app', 'logged-app', '--kind', 'usage', '--json'], { env }));
    expect(usage.events.map((e: { name: string }) => e.name)).toEqual(['clicked']);
    expect(jsonOf(await svcIn('logs', '--since', '1h', '--json')).events).toHaveLength(3);
    const future = await svcIn('logs', '--since', '2099-01-01T00:00:00Z');
    expect([future.code, future.stdout]).toEqual([0, 'No records in the log of cell-acme/logged-app since 2099-01-01T00:00:00.000Z.\n']);
    const newest = jsonOf(await svcIn('logs', '--limit', '2', '--json')).events;
    expect(newest.map((e: { name: string }) => e.name)).toEqual(['enter_test', 'clicked']);
  });

  it('--follow prints the records there are, then each new one once, as JSON lines with --json', async () => {
    const follow = startSvc(['logs', '--follow', '--kind', 'usage', '--json'], { env, cwd: dir });
    try {
      await expect.poll(() => follow.stdout(), { timeout: 15_000 }).toContain('"name":"clicked"');
      expect((await track('saved', { rows: 2 })).status).toBe(201);
      await expect.poll(() => follow.stdout(), { timeout: 15_000 }).toContain('"name":"saved"');
      expect((await track('clicked', { button: 'undo' })).status).toBe(201);
      await expect.poll(() => follow.stdout(), { timeout: 15_000 }).toContain('"button":"undo"');
    } finally {
      await follow.stop();
    }
    const lines = follow
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    // Each record once, in order, only usage (the releases are left out by --kind).
    expect(lines.map((e) => e.name)).toEqual(['clicked', 'saved', 'clicked']);
    expect(lines[1]).toMatchObject({ kind: 'usage', data: { rows: 2 }, visitor: { username: 'dana' } });
  });

  it('--follow --since shows the records from then on, follows new ones, and exits 3 when its key is revoked', async () => {
    const key = await passwordKey(svc, 'dana');
    const follow = startSvc(['logs', '--follow', '--since', '1h'], { env: { ...env, SVC_API_KEY: key }, cwd: dir });
    try {
      await expect.poll(() => follow.stdout(), { timeout: 15_000 }).toContain('button=undo');
      expect(follow.stdout()).toMatch(/release\/deploy[\s\S]*release\/enter_test[\s\S]*usage\/clicked/);
      expect(follow.stderr()).toContain('Following the log of cell-acme/logged-app');
      expect((await track('exported', { rows: 7 })).status).toBe(201);
      await expect.poll(() => follow.stdout(), { timeout: 15_000 }).toMatch(/usage\/exported +dana +- +rows=7\n$/);
      const keys = await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(key) });
      const current = (keys.body.data.keys as { keyId: string; current: boolean }[]).find((k) => k.current)!;
      expect((await svc.call('DELETE', `/api/v1/developer/keys/${current.keyId}`, { headers: bearer(key) })).status).toBe(200);
      const ended = await follow.ended;
      expect(ended.code, ended.stderr).toBe(3);
      expect(ended.stderr).toContain('unauthorized');
    } finally {
      await follow.stop();
    }
    expect(follow.stdout().match(/usage\/exported/g)).toHaveLength(1);
  });

  it('exits 2 on a bad --kind, --since or --limit, 1 for an unknown app, 3 without a credential', async () => {
    for (const args of [
      ['--kind', 'visits'],
      ['--since', 'yesterday'],
      ['--since', '2026-11-27T10:00'],
      ['--limit', '0'],
    ]) {
      const run = await svcIn('logs', ...args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
    }
    const unknown = await runSvc(['logs', '--app', 'no-such-app', '--json'], { env });
    expect([unknown.code, jsonOf(unknown).error.code]).toEqual([1, 'app_not_found']);
    expect((await runSvc(['logs'], { env: { ...home.env, SVC_BASE_URL: svc.url! }, cwd: dir })).code).toBe(3);
  });
});
