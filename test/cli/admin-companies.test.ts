import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeBody } from '../support/provisioning.ts';
import type { TestService } from '../support/service.ts';
import { type cliHome, jsonOf, runSvc } from './support/cli.ts';
import { startCliService } from './support/cli-service.ts';

// Issue 39, Deliver 4: `svc admin companies list|status|init|rerun` over the control plane, as an
// operator. The CLI is a child process against the real service (role all: the runs happen).

let cli: Awaited<ReturnType<typeof startCliService>>;
let svc: TestService;
let home: Awaited<ReturnType<typeof cliHome>>;
let env: Record<string, string>;
const admin = (...args: string[]) => runSvc(['admin', 'companies', ...args], { env, cwd: home.dir });
const CELL = 'cell-clinic';
const A = () => path.join(svc.companyRoot, 'clinic', 'first');
const B = () => path.join(svc.companyRoot, 'clinic', 'second');
async function requestFile(name: string, body: unknown): Promise<string> {
  await writeFile(path.join(home.dir, name), JSON.stringify(body));
  return name;
}

beforeAll(async () => {
  cli = await startCliService({ role: 'all' });
  ({ svc, home } = cli);
  // The operator's key: the control plane is for operators only.
  env = { ...cli.env, SVC_API_KEY: cli.seeded.op };
}, 120_000);
afterAll(() => cli?.close());

// Each test runs the CLI several times, a Node start each: room for a loaded machine.
describe('svc admin companies', { timeout: 120_000 }, () => {
  it('init: --dry-run prints the plan and changes nothing; then it runs, --wait follows it to its end', async () => {
    const file = await requestFile('clinic.json', initializeBody(CELL, A()));
    const dry = await admin('init', file, '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    const planned = jsonOf(dry).plan.wouldStartOrJoin;
    expect(planned).toMatchObject({ workflowId: `company-init:${CELL}`, record: 'created', changes: [] });
    expect(planned.plan).toHaveLength(21);
    expect(new Set(planned.plan.map((s: { action: string }) => s.action))).toEqual(new Set(['create']));
    const human = await admin('init', file, '--dry-run');
    expect(human.stdout).toMatch(
      /^Dry run: nothing changed\.\nwould start or join company-init:cell-clinic: cloud-instance, folders, agent-profiles\n/,
    );
    expect(human.stdout).toMatch(/\nPlan:\n {2}STEP\s+TARGET\s+ACTION\s+WHERE\n {2}cloud-instance\s+instance\s+create\n/);
    expect(human.stdout).toMatch(new RegExp(`\\n {2}folders\\s+01_executive\\s+create\\s+${path.join(A(), '01_executive')}\\n`));
    const missing = await admin('status', CELL);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringMatching(/organization_not_found/)]);

    const run = await admin('init', file, '--wait');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^run \S+ of company-init:cell-clinic: cloud-instance, folders, agent-profiles\nRecord: created\n/);
    expect(run.stdout).toMatch(/^cell-clinic: completed\n {2}company clinic \(clinic Trading\) at /);
    expect(run.stdout).toMatch(/\n {2}instance i-\w+ \(local\): running\n/);
    expect(run.stdout).toContain('  folders 10, agent profiles 10\n  drift: 0\n');
    expect(run.stdout).toMatch(/\n {4}folders: completed \(created 10\)\n/);
  });

  it('list and status show the company as the service does, with --json the whole answer', async () => {
    const listed = jsonOf(await admin('list', '--json'));
    const status = jsonOf(await admin('status', CELL, '--json'));
    expect(listed.companies.find((c: { cellId: string }) => c.cellId === CELL)).toMatchObject({
      status: 'completed',
      companyKey: 'clinic',
      driftCount: 0,
      instance: { instanceId: status.server.instanceId, state: 'running', remedy: null },
    });
    const table = await admin('list', '--limit', '1');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^CELL\s+NAME\s+KEY\s+STATUS\s+LAST RUN\s+INSTANCE\s+DRIFT\n/);
    expect(table.stdout).toMatch(/\n\nMore: svc admin companies list --after cell-\S+\n$/);
    const bad = await admin('list', '--limit', '0');
    expect(bad.code).toBe(2);
  });

  it('a re-run with changed parameters is refused with the diff (exit 1); --apply move --dry-run shows the move plan', async () => {
    const file = await requestFile('moved.json', initializeBody(CELL, B(), { companyKey: 'moved' }));
    const refused = await admin('init', file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Error: conflict: companyKey, rootPath differ from the stored initialization of cell-clinic');
    expect(refused.stderr).toContain(`  companyKey: stored clinic, requested moved\n  rootPath: stored ${A()}, requested ${B()}\n`);
    const json = await admin('init', file, '--json');
    expect(jsonOf(json).error).toMatchObject({ code: 'conflict', details: { changes: [{ field: 'companyKey' }, { field: 'rootPath' }] } });

    const plan = await admin('init', file, '--apply', 'move', '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`Parameter changes:\n  companyKey: clinic -> moved\n  rootPath: ${A()} -> ${B()}\nPlan:\n`);
    expect(plan.stdout).toMatch(new RegExp(`\\n {2}move\\s+root\\s+move\\s+${A()} -> ${B()}\\n`));
    expect(plan.stdout).toMatch(/\n {2}agent-profiles\s+moved-ceo\s+move\s+/);
    expect(jsonOf(await admin('status', CELL, '--json')).company).toMatchObject({ companyKey: 'clinic', rootPath: A(), pendingMove: null });
  });

  it('rerun: the stored parameters reuse everything; one part; --replace only for a dead instance and only with cloud-instance', async () => {
    const dry = await admin('rerun', CELL, '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    const planned = jsonOf(dry).plan.wouldStartOrJoin;
    expect([planned.record, planned.changes]).toEqual(['unchanged', []]);
    expect(new Set(planned.plan.map((s: { action: string }) => s.action))).toEqual(new Set(['reuse']));

    const part = await admin('rerun', CELL, '--part', 'folders', '--wait', '--json');
    expect(part.code, part.stderr).toBe(0);
    const answer = jsonOf(part);
    expect(answer).toMatchObject({ workflowId: `company-init:${CELL}:folders`, steps: ['folders'] });
    const run = answer.status.runs.find((r: { runId: string }) => r.runId === answer.runId);
    expect(run.status).toBe('completed');
    expect(run.steps[0].changes.every((c: { outcome: string }) => c.outcome === 'reused')).toBe(true);

    const usage = await admin('rerun', CELL, '--part', 'folders', '--replace');
    expect([usage.code, usage.stderr]).toEqual([2, expect.stringContaining('--replace replaces the instance')]);
    const alive = await admin('rerun', CELL, '--replace');
    expect([alive.code, alive.stderr]).toEqual([
      1,
      expect.stringMatching(/conflict: Instance i-\w+ is reported by the provider as running/),
    ]);
    const badCell = await admin('status', 'not a cell');
    expect(badCell.code).toBe(2);
    const noFile = await admin('init', 'absent.json');
    expect([noFile.code, noFile.stderr]).toEqual([2, 'Error: invalid_file: absent.json: no such file\n']);
    const list = await admin('init', await requestFile('list.json', [initializeBody(CELL, A())]));
    expect([list.code, list.stderr]).toEqual([2, 'Error: invalid_file: list.json: a JSON object is expected.\n']);
    const unknown = await admin('init', await requestFile('extra.json', { ...initializeBody(CELL, A()), extra: 1 }));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('extra:');
  });
});
