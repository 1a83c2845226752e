import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { release } from '../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits } from '../support/identity.ts';
import type { TestService } from '../support/service.ts';
import { type cliHome, jsonOf, runSvc, startSvc } from './support/cli.ts';
import { startCliService } from './support/cli-service.ts';

// Issue 35, Deliver 3: `svc runs` shows an app's workflow runs with their step progress and each
// run's Temporal UI address, and `--follow` prints progress from the watch stream. The CLI is a
// child process against the real service on loopback, with its worker and embedded Temporal.

let cli: Awaited<ReturnType<typeof startCliService>>;
let svc: TestService;
let home: Awaited<ReturnType<typeof cliHome>>;
let env: Record<string, string>;
let dev: string;
const flow = {
  sdk: ['semantic'],
  workflow: {
    description: 'Lists the developers.',
    steps: [
      { id: 'people', kind: 'use', capability: 'platform.accounts', input: { role: 'developer' } },
      { id: 'names', kind: 'compute', op: 'per-row', from: '=steps.people', fields: { name: '=row.username' } },
    ],
  },
};
const execute = () =>
  svc.call('POST', '/api/v1/developer/apps/cell-acme/flow/apis/run/execute', { body: { input: {} }, headers: bearer(dev) });
const uiOf = (workflowId: string) => `${svc.temporal!.uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;

beforeAll(async () => {
  cli = await startCliService({ role: 'all', env: { SVC_RUN_START_WAIT_MS: '30000' } });
  ({ svc, home, env, key: dev } = cli);
  await release(svc, dev, { namespace: 'cell-acme', slug: 'flow', version: '1.0.0', manifest: flow });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'still', version: '1.0.0' });
}, 180_000);
afterAll(() => cli?.close());
beforeEach(() => resetRateLimits(svc));

// Each test runs the CLI several times, a Node start each: room for a loaded machine.
describe('svc runs', { timeout: 90_000 }, () => {
  it('lists the runs oldest first with their steps and Temporal UI address', async () => {
    const first = await execute();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const run = first.body.data.run;

    const json = await runSvc(['runs', '--app', 'flow', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(jsonOf(json)).toMatchObject({
      app: { namespace: 'cell-acme', slug: 'flow' },
      runs: [
        {
          id: run.id,
          status: 'succeeded',
          trigger: 'api',
          temporalUi: uiOf(run.workflowId),
          steps: [
            { id: 'people', status: 'succeeded' },
            { id: 'names', status: 'succeeded' },
          ],
        },
      ],
    });

    const human = await runSvc(['runs', '--app', 'flow'], { env });
    expect(human.stdout).toMatch(new RegExp(`^${run.id} {2}succeeded {2}api {2}1\\.0\\.0 production {2}\\d{4}-.+ {2}steps 2/2\\n`));
    expect(human.stdout).toMatch(/\n {2}✓ people \(use\) succeeded \d+(\.\d)? m?s\n {2}✓ names \(compute\) succeeded \d+(\.\d)? m?s\n/);
    expect(human.stdout).toContain(`\n  Temporal: ${uiOf(run.workflowId)}\n`);
    const none = await runSvc(['runs', '--app', 'still'], { env });
    expect([none.code, none.stdout]).toEqual([0, 'cell-acme/still has no workflow runs yet.\n']);
  });

  it('--follow prints a new run’s progress once, from the watch stream, with its Temporal UI address', async () => {
    const before = jsonOf(await runSvc(['runs', '--app', 'flow', '--json'], { env })).runs.length;
    const follow = startSvc(['runs', '--app', 'flow', '--follow', '--json'], { env });
    let events: { type: string; [key: string]: unknown }[] = [];
    try {
      await expect.poll(() => follow.stdout().split('\n').filter(Boolean).length, { timeout: 20_000 }).toBe(before);
      const next = await execute();
      expect(next.status).toBe(201);
      const lines = () =>
        follow
          .stdout()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line));
      await expect
        .poll(() => lines().some((e) => e.type === 'run' && e.runId === next.body.data.run.id && e.status === 'succeeded'), {
          timeout: 20_000,
        })
        .toBe(true);
      events = lines();
    } finally {
      await follow.stop();
    }
    const id = events.find((e) => e.type === 'run' && e.status === 'running')?.runId;
    const mine = events.filter((e) => e.runId === id);
    const seen = mine.map((e) =>
      e.type === 'step'
        ? `step ${(e.step as { id: string; status: string }).id} ${(e.step as { status: string }).status}`
        : `run ${e.status}`,
    );
    expect(seen).toEqual(expect.arrayContaining(['run running', 'step people succeeded', 'step names succeeded', 'run succeeded']));
    expect(new Set(seen).size, seen.join(', ')).toBe(seen.length);
    expect(mine[0]).toMatchObject({ type: 'run', status: 'running', temporalUi: uiOf(String(mine[0]!.workflowId)) });
    expect(events.filter((e) => e.type === 'listed')).toHaveLength(before);
  });

  it('--follow ends with exit 3 when the watch stream ends on the revoked key (no reconnect)', async () => {
    const key = await passwordKey(svc, 'dana');
    const follow = startSvc(['runs', '--app', 'flow', '--follow'], { env: { ...env, SVC_API_KEY: key } });
    await expect.poll(() => follow.stderr(), { timeout: 20_000 }).toContain('Following the runs of cell-acme/flow');
    const keys = await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(key) });
    const keyId = keys.body.data.keys.find((k: { current: boolean }) => k.current).keyId;
    expect((await svc.call('DELETE', `/api/v1/developer/keys/${keyId}`, { headers: bearer(key) })).status).toBe(200);
    const ended = await follow.ended;
    expect(ended.code).toBe(3);
    expect(ended.stderr).toMatch(/Error: (unauthorized|invalid_key): /);
  });

  it('exits 1 for an unknown app, 2 on a bad --limit, 3 without a credential', async () => {
    const unknown = await runSvc(['runs', '--app', 'nope', '--json'], { env });
    expect([unknown.code, jsonOf(unknown).error.code]).toEqual([1, 'app_not_found']);
    expect((await runSvc(['runs', '--app', 'flow', '--limit', '500'], { env })).code).toBe(2);
    expect((await runSvc(['runs', '--app', 'flow'], { env: { ...home.env, SVC_BASE_URL: svc.url! } })).code).toBe(3);
  });
});
