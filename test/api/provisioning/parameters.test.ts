import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTIVE_ROLES } from '../../../domain/provisioning/catalog.ts';
import { bearer, operatorKey } from '../../support/identity.ts';
import { controlPlane, initializeBody } from '../../support/provisioning.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Re-running initialize with other parameters: refused with the diff unless asked how to apply
// it; `apply: "move"` moves the tree and renames the profiles exactly once; names reach the company.

let svc: TestService;
let op: string;

beforeAll(async () => {
  svc = await startTestService({ role: 'all' });
  op = await operatorKey(svc);
}, 120_000);
afterAll(() => svc.close());

const initialize = (body: unknown, headers: Record<string, string> = {}) => controlPlane(svc, op).initialize(body, headers);
const status = (cellId: string) => controlPlane(svc, op).status(cellId);
const finished = (run: { workflowId: string; runId: string }) => controlPlane(svc, op).finished(run);
/** Every entry under `dir`, relative, sorted: the tree as it is on disk. */
const tree = async (dir: string) => ((await fs.readdir(dir, { recursive: true })) as string[]).sort();
const requests = async () => (await svc.database.db.selectFrom('provisioning_requests').select('id').execute()).length;

const A = () => path.join(svc.companyRoot, 'params', 'first');
const B = () => path.join(svc.companyRoot, 'params', 'second');
const first = () => initializeBody('cell-params', A());
const moved = (overrides: Record<string, unknown> = {}) => initializeBody('cell-params', B(), { companyKey: 'relocated', ...overrides });

describe('initialize with changed parameters', () => {
  beforeAll(async () => {
    const res = await initialize(first());
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await finished(res.body.data);
  });

  it('answers 409 conflict with the diff and changes nothing, dry run or not', async () => {
    const before = { status: await status('cell-params'), tree: await tree(A()), requests: await requests() };
    for (const headers of [{}, { 'x-svc-dry-run': 'true' }] as Record<string, string>[]) {
      const res = await initialize(moved(), headers);
      expect([res.status, res.body.error.code]).toEqual([409, 'conflict']);
      expect(res.body.error.details.changes).toEqual([
        { field: 'companyKey', stored: 'params', requested: 'relocated' },
        { field: 'rootPath', stored: A(), requested: B() },
      ]);
      expect(res.body.error.message).toMatch(/"apply": "move"/);
    }
    const after = await status('cell-params');
    expect(after.company).toEqual(before.status.company);
    expect(after.runs).toEqual(before.status.runs);
    expect(await tree(A())).toEqual(before.tree);
    await expect(fs.stat(B())).rejects.toThrow();
    expect(await requests()).toBe(before.requests);
  });

  it('refuses a changed cloud target even with apply "move", naming it', async () => {
    const res = await initialize(
      moved({ apply: 'move', cloud: { profile: 'ops', accountId: '123456789012', region: 'us-east-1', instanceName: 'params-main' } }),
    );
    expect([res.status, res.body.error.code]).toEqual([409, 'conflict']);
    expect(res.body.error.details.unsupported).toEqual(['cloud.region']);
    expect((await status('cell-params')).company.rootPath).toBe(A());
  });

  it('dry run with apply "move": the same diff and the plan per folder and profile, nothing moved', async () => {
    const res = await initialize(moved({ apply: 'move' }), { 'x-svc-dry-run': 'true' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const { changes, plan } = res.body.data.plan.wouldStartOrJoin;
    expect(changes.map((c: { field: string }) => c.field)).toEqual(['companyKey', 'rootPath']);
    expect(plan[0]).toEqual({ step: 'move', target: 'root', action: 'move', from: A(), path: B() });
    expect(plan.find((s: { step: string }) => s.step === 'cloud-instance').action).toBe('reuse');
    const folders = plan.filter((s: { step: string }) => s.step === 'folders');
    expect(folders).toHaveLength(10);
    expect(folders[0]).toEqual({
      step: 'folders',
      target: '01_executive',
      action: 'move',
      from: path.join(A(), '01_executive'),
      path: path.join(B(), '01_executive'),
    });
    const profiles = plan.filter((s: { step: string }) => s.step === 'agent-profiles');
    expect(profiles.map((s: { target: string; action: string; from: string }) => [s.target, s.action, s.from])).toEqual(
      EXECUTIVE_ROLES.map((r) => [`relocated-${r.role}`, 'move', path.join(A(), 'agents', `params-${r.role}`)]),
    );
    await expect(fs.stat(B())).rejects.toThrow();
    expect((await status('cell-params')).company).toMatchObject({ companyKey: 'params', rootPath: A(), pendingMove: null });
  });

  it('apply "move" from two calls at once moves the tree exactly once and renames the profiles', async () => {
    const before = await tree(A());
    const answers = await Promise.all([initialize(moved({ apply: 'move' })), initialize(moved({ apply: 'move' }))]);
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    // One call changed the parameters; the other found them stored and joined.
    expect(answers.map((a) => a.body.data.changes.length).sort()).toEqual([0, 2]);
    for (const a of answers) await finished(a.body.data);

    await expect(fs.stat(A())).rejects.toThrow();
    const renamed = (entry: string) => entry.replace(/^agents\/params-/, 'agents/relocated-');
    expect(await tree(B())).toEqual(before.map(renamed).sort());
    const s = await status('cell-params');
    expect(s.status).toBe('completed');
    expect(s.company).toMatchObject({ companyKey: 'relocated', rootPath: B(), pendingMove: null });
    const moves = s.runs
      .flatMap((r: { steps: { name: string; changes: { item: string; outcome: string }[] }[] }) => r.steps)
      .filter((st: { name: string }) => st.name === 'move')
      .flatMap((st: { changes: { item: string; outcome: string }[] }) => st.changes)
      .filter((c: { outcome: string }) => c.outcome === 'moved');
    expect(moves).toHaveLength(11);
    expect(moves[0].item).toBe(`root ${A()} -> ${B()}`);
    expect(s.agentProfiles.map((p: { name: string }) => p.name).sort()).toEqual(EXECUTIVE_ROLES.map((r) => `relocated-${r.role}`).sort());
    expect(s.folders.every((f: { path: string }) => f.path.startsWith(`${B()}/`))).toBe(true);
    const description = await fs.readFile(path.join(B(), 'agents', 'relocated-cfo', 'description.md'), 'utf8');
    expect(description).toContain('# relocated-cfo');
    expect(description).toContain(`Company folder: ${path.join(B(), '03_finance')}`);
  });

  it('a name change reaches the company record and the descriptions, planned as refresh', async () => {
    const body = moved({ nameEn: 'Relocated Trading GmbH' });
    const dry = await initialize(body, { 'x-svc-dry-run': 'true' });
    expect(dry.status).toBe(202);
    const planned = dry.body.data.plan.wouldStartOrJoin;
    expect(planned.changes).toEqual([{ field: 'nameEn', stored: 'params Trading', requested: 'Relocated Trading GmbH' }]);
    expect(
      new Set(planned.plan.filter((s: { step: string }) => s.step === 'agent-profiles').map((s: { action: string }) => s.action)),
    ).toEqual(new Set(['refresh']));
    expect(new Set(planned.plan.filter((s: { step: string }) => s.step === 'folders').map((s: { action: string }) => s.action))).toEqual(
      new Set(['reuse']),
    );

    const res = await initialize(body);
    expect([res.status, res.body.data.record]).toEqual([202, 'updated']);
    await finished(res.body.data);
    const company = await svc.database.db
      .selectFrom('companies')
      .select('name')
      .where('cell_id', '=', 'cell-params')
      .executeTakeFirstOrThrow();
    expect(company.name).toBe('Relocated Trading GmbH');
    expect(await fs.readFile(path.join(B(), 'agents', 'relocated-ceo', 'description.md'), 'utf8')).toContain('for Relocated Trading GmbH.');
  });
});

describe('POST .../cloud-instance with replace', () => {
  const cloudInstance = (body: unknown, headers: Record<string, string> = {}) =>
    svc.call('POST', '/api/v1/control-plane/companies/cell-params/cloud-instance', { body, headers: { ...bearer(op), ...headers } });
  const localCloud = () => path.join(path.dirname(path.dirname(svc.temporal!.embeddedStateFile!)), 'local-cloud');
  /** Terminates the instance behind svc's back, as the cloud console would. */
  async function terminate(instanceId: string) {
    for (const name of await fs.readdir(localCloud())) {
      const file = path.join(localCloud(), name);
      const instance = JSON.parse(await fs.readFile(file, 'utf8'));
      if (instance.instanceId === instanceId) await fs.writeFile(file, JSON.stringify({ ...instance, state: 'terminated' }));
    }
  }

  it('refuses other fields and values with their path, and a live instance with its state', async () => {
    for (const [body, where] of [
      [{ replace: 'yes' }, 'replace'],
      [{ replace: true, force: true }, 'force'],
    ] as const) {
      const res = await cloudInstance(body);
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_payload']);
      expect(res.body.error.details.problems.map((p: { path: string }) => p.path)).toEqual([where]);
    }
    const live = await cloudInstance({ replace: true });
    expect([live.status, live.body.error.code]).toEqual([409, 'conflict']);
    expect(live.body.error.details).toMatchObject({ state: 'running' });
  });

  it('replaces a terminated instance once: dry run plans it, the call does it, the status shows the old id', async () => {
    const old = (await status('cell-params')).server;
    await terminate(old.instanceId);
    const failed = await svc.call('POST', '/api/v1/control-plane/companies/cell-params/cloud-instance', { headers: bearer(op) });
    await finished(failed.body.data).catch(() => undefined);
    const dead = await status('cell-params');
    expect(dead.server).toMatchObject({ state: 'terminated', remedy: expect.stringContaining('{"replace": true}') });
    // A re-run's plan says the run would stop at the dead instance, and what to do.
    const rerun = await initialize(moved({ nameEn: 'Relocated Trading GmbH' }), { 'x-svc-dry-run': 'true' });
    expect(rerun.body.data.plan.wouldStartOrJoin.plan[0]).toEqual({
      step: 'cloud-instance',
      target: `instance ${old.instanceId}`,
      action: 'blocked',
      reason: expect.stringMatching(/is terminated\. The instance will not come back: POST .*\{"replace": true\}/),
    });

    const dry = await cloudInstance({ replace: true }, { 'x-svc-dry-run': 'true' });
    expect(dry.status).toBe(202);
    expect(dry.body.data.plan.wouldStartOrJoin).toMatchObject({ replacing: old.instanceId, steps: ['cloud-instance'] });
    expect((await status('cell-params')).server).toMatchObject({ instanceId: old.instanceId, generation: 0, replaced: [] });

    const res = await cloudInstance({ replace: true });
    expect([res.status, res.body.data.replacing]).toEqual([202, old.instanceId]);
    await finished(res.body.data);
    const after = await status('cell-params');
    expect(after.server).toMatchObject({ state: 'running', generation: 1, remedy: null, replaced: [{ instanceId: old.instanceId }] });
    expect(after.server.instanceId).not.toBe(old.instanceId);
    expect((await fs.readdir(localCloud())).filter((n) => n.endsWith('.json'))).toHaveLength(2);
  });
});

describe('drift between the record and the disk', () => {
  const C = () => path.join(svc.companyRoot, 'drift');
  const profile = (role: string) => path.join(C(), 'agents', `drift-${role}`);
  const agentProfiles = async () => {
    const res = await svc.call('POST', '/api/v1/control-plane/companies/cell-drift/agent-profiles', { headers: bearer(op) });
    expect(res.status).toBe(202);
    await finished(res.body.data).catch(() => undefined);
    return (await status('cell-drift')).runs[0];
  };

  it('reports each kind of drift; a refresh keeps a hand-edited description in description.md.previous', async () => {
    const res = await initialize(initializeBody('cell-drift', C()));
    await finished(res.body.data);
    expect((await status('cell-drift')).drift).toEqual({
      checked: true,
      count: 0,
      entries: [],
      instance: { checked: true, state: 'running', error: null },
    });

    await fs.rmdir(path.join(C(), '04_product'));
    await fs.rm(profile('cmo'), { recursive: true });
    await fs.writeFile(path.join(profile('cto'), 'description.md'), 'edited by hand');
    await fs.rm(path.join(profile('clo'), 'description.md'));
    await fs.writeFile(path.join(C(), 'notes.txt'), 'x');
    await fs.mkdir(path.join(C(), 'agents', 'rogue'));
    const { drift } = await status('cell-drift');
    expect(drift.count).toBe(6);
    expect(drift.entries.map((e: { kind: string; target: string; name: string }) => [e.kind, e.target, e.name]).sort()).toEqual(
      [
        ['missing', 'folder', '04_product'],
        ['missing', 'profile', 'drift-cmo'],
        ['changed', 'description', 'drift-cto'],
        ['missing', 'description', 'drift-clo'],
        ['unexpected', 'entry', 'notes.txt'],
        ['unexpected', 'entry', 'rogue'],
      ].sort(),
    );

    const run = await agentProfiles();
    expect(run.status).toBe('completed');
    expect(run.steps[0].changes).toContainEqual({
      item: 'drift-cto',
      outcome: 'refreshed',
      note: 'hand edit kept in description.md.previous',
    });
    expect(await fs.readFile(path.join(profile('cto'), 'description.md.previous'), 'utf8')).toBe('edited by hand');
    expect(await fs.readFile(path.join(profile('cto'), 'description.md'), 'utf8')).toMatch(/^# drift-cto/);
    // A description that was still svc's own text is refreshed without a copy.
    await expect(fs.stat(path.join(profile('ceo'), 'description.md.previous'))).rejects.toThrow();
    const after = (await status('cell-drift')).drift;
    expect(after.entries.map((e: { name: string }) => e.name).sort()).toEqual(['notes.txt', 'rogue']);
  });

  it('a step that fails halfway records what it had changed', async () => {
    await fs.writeFile(path.join(profile('ceo'), 'description.md'), 'edited again');
    const target = path.join(svc.companyRoot, 'drift-elsewhere.md');
    await fs.writeFile(target, 'not a description');
    await fs.rm(path.join(profile('cso'), 'description.md'));
    await fs.symlink(target, path.join(profile('cso'), 'description.md'));
    const run = await agentProfiles();
    expect(run.status).toBe('failed');
    const [step] = run.steps;
    expect(step).toMatchObject({ name: 'agent-profiles', status: 'failed', lastError: expect.stringMatching(/symbolic link/) });
    // Nine profiles came before the one that failed (10_sales is the last); the ceo edit was kept.
    expect(step.changes).toHaveLength(9);
    expect(step.changes[0]).toEqual({ item: 'drift-ceo', outcome: 'refreshed', note: 'hand edit kept in description.md.previous' });
    expect(await fs.readFile(target, 'utf8')).toBe('not a description');
  });
});

describe('GET /api/v1/control-plane/companies', () => {
  it('pages through every company with its state, last run, instance and drift count as provisioning-status says', async () => {
    const seen = [];
    let after: string | null = null;
    do {
      const res = await svc.call('GET', `/api/v1/control-plane/companies?limit=1${after ? `&after=${after}` : ''}`, {
        headers: bearer(op),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.companies.length).toBeLessThanOrEqual(1);
      seen.push(...res.body.data.companies);
      after = res.body.data.next;
    } while (after);
    const cells = seen.map((c) => c.cellId);
    expect(cells).toEqual([...cells].sort());
    expect(cells).toEqual(expect.arrayContaining(['cell-drift', 'cell-params']));
    for (const cellId of ['cell-drift', 'cell-params']) {
      const s = await status(cellId);
      expect(seen.find((c) => c.cellId === cellId)).toEqual({
        cellId,
        name: expect.any(String),
        companyKey: s.company.companyKey,
        status: s.status,
        lastRun: {
          workflowId: s.runs[0].workflowId,
          runId: s.runs[0].runId,
          part: s.runs[0].part,
          status: s.runs[0].status,
          startedAt: s.runs[0].startedAt,
          finishedAt: s.runs[0].finishedAt,
          error: s.runs[0].error,
        },
        instance: { instanceId: s.server.instanceId, state: s.server.state, remedy: s.server.remedy },
        driftCount: s.drift.count,
        pendingMove: false,
      });
    }
    expect(seen.find((c) => c.cellId === 'cell-drift').driftCount).toBeGreaterThan(0);
    const bad = await svc.call('GET', '/api/v1/control-plane/companies?limit=0&extra=1', { headers: bearer(op) });
    expect(bad.status).toBe(400);
  });
});
