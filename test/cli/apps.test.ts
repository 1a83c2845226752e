import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { type cliHome, jsonOf, runSvc } from './support/cli.ts';
import { startCliService } from './support/cli-service.ts';

// Issue 35, Deliver 3: `svc apps list` shows each app's versions and both addresses, as the service
// computes them. The CLI is a child process against the real service on loopback.

let cli: Awaited<ReturnType<typeof startCliService>>;
let svc: TestService;
let home: Awaited<ReturnType<typeof cliHome>>;
let env: Record<string, string>;

beforeAll(async () => {
  cli = await startCliService();
  ({ svc, home, env } = cli);
}, 120_000);
afterAll(() => cli?.close());

// Each test runs the CLI several times, a Node start each: room for a loaded machine.
describe('svc apps list', { timeout: 90_000 }, () => {
  it('says how to make the first app when there is none', async () => {
    const run = await runSvc(['apps', 'list'], { env });
    expect([run.code, run.stdout]).toEqual([0, 'No apps yet: `svc init` and `svc deploy` make the first.\n']);
  });

  it('shows each app’s channels with their addresses (was: versions only)', async () => {
    for (const slug of ['listed-a', 'listed-b']) {
      const dir = path.join(home.dir, slug);
      expect((await runSvc(['init', dir], { env })).code).toBe(0);
      expect((await runSvc(['deploy'], { env, cwd: dir })).code).toBe(0);
    }
    expect((await runSvc(['test', '--app', 'listed-a'], { env })).code).toBe(0);
    const test = (slug: string) => `${svc.addresses.developerBase}/cell-acme/apps/${slug}`;
    const production = (slug: string) => `${svc.addresses.productionBase}/cell-acme/apps/${slug}`;

    const json = await runSvc(['apps', 'list', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(jsonOf(json).apps).toEqual([
      expect.objectContaining({
        namespace: 'cell-acme',
        slug: 'listed-a',
        test: { version: '0.1.0', build: 1 },
        production: null,
        addresses: { test: test('listed-a'), production: production('listed-a') },
      }),
      expect.objectContaining({ slug: 'listed-b', test: null, addresses: { test: test('listed-b'), production: production('listed-b') } }),
    ]);

    const human = await runSvc(['apps', 'list'], { env });
    expect(human.stdout).toMatch(/^cell-acme\/listed-a {2}.+ {2}\(latest 0\.1\.0 #1, \d{4}-\d\d-\d\d \d\d:\d\d\)\n/);
    expect(human.stdout).toContain(`\n  test:        0.1.0  ${test('listed-a')}\n  production:  -      ${production('listed-a')}\n\n`);
    expect(human.stdout).toContain(`\n  test:        -  ${test('listed-b')}\n  production:  -  ${production('listed-b')}\n`);
  });

  it('exits 3 without a credential and 2 on an unknown option', async () => {
    expect((await runSvc(['apps', 'list'], { env: { ...home.env, SVC_BASE_URL: svc.url! } })).code).toBe(3);
    expect((await runSvc(['apps', 'list', '--everything'], { env })).code).toBe(2);
  });
});
