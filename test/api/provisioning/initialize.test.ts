import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTIVE_ROLES } from '../../../domain/provisioning/catalog.ts';
import { bearer, createOrganization, createUser, operatorKey, passwordKey } from '../../support/identity.ts';
import { controlPlane, initializeBody } from '../../support/provisioning.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// The whole control plane over HTTP: the service (role all) with the local cloud provider, the
// outbox relay, the worker and the embedded Temporal server.

let svc: TestService;
let op: string;

beforeAll(async () => {
  svc = await startTestService({ role: 'all' });
  op = await operatorKey(svc);
}, 120_000);
afterAll(() => svc.close());

const initialize = (body: unknown, headers: Record<string, string> = {}) => controlPlane(svc, op).initialize(body, headers);
const status = (cellId: string) => controlPlane(svc, op).status(cellId);
const finished = (workflowId: string, runId: string) => controlPlane(svc, op).finished({ workflowId, runId });
const localInstances = async () => (await fs.readdir(path.join(dataDir(), 'local-cloud'))).filter((n) => n.endsWith('.json'));
const dataDir = () => path.dirname(path.dirname(svc.temporal!.embeddedStateFile!));
/** SVC_COMPANY_ROOT of this service: every rootPath lies under it. */
const roots = () => svc.companyRoot;

describe('POST /api/v1/control-plane/companies/initialize', () => {
  it('creates the company, its instance, ten folders and ten agent profiles, and reports every step', async () => {
    const root = path.join(roots(), 'north');
    const res = await initialize(initializeBody('cell-north', root));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const accepted = res.body.data;
    expect(accepted).toMatchObject({
      workflowId: 'company-init:cell-north',
      part: 'all',
      company: { cellId: 'cell-north', outcome: 'created' },
      record: 'created',
      steps: ['cloud-instance', 'folders', 'agent-profiles'],
      statusUrl: `${svc.addresses.baseUrl}/api/v1/control-plane/companies/cell-north/provisioning-status`,
    });
    expect(accepted.runId).toMatch(/\S+/);
    await finished(accepted.workflowId, accepted.runId);

    const s = await status('cell-north');
    expect(s.status).toBe('completed');
    expect(s.server).toMatchObject({ provider: 'local', state: 'running', address: '127.0.0.1' });
    expect(s.server.securityGroups).toHaveLength(1);
    expect(s.folders.map((f: { name: string }) => f.name)).toEqual(EXECUTIVE_ROLES.map((r) => r.folder));
    expect(s.agentProfiles.map((p: { name: string }) => p.name).sort()).toEqual(EXECUTIVE_ROLES.map((r) => `north-${r.role}`).sort());
    for (const p of s.agentProfiles) expect(p.rid).toMatch(/^ri\.agents\.svc\.agent\.agt_[0-9A-Za-z]+$/);
    const [run] = s.runs;
    expect(run).toMatchObject({ workflowId: 'company-init:cell-north', runId: accepted.runId, status: 'completed' });
    expect(run.steps.map((st: { name: string }) => st.name)).toEqual(['cloud-instance', 'instance-running', 'folders', 'agent-profiles']);
    expect(run.steps.every((st: { attempts: number; status: string }) => st.attempts === 1 && st.status === 'completed')).toBe(true);
    const folderStep = run.steps.find((st: { name: string }) => st.name === 'folders');
    expect(new Set(folderStep.changes.map((c: { outcome: string }) => c.outcome))).toEqual(new Set(['created']));

    for (const { folder } of EXECUTIVE_ROLES) expect((await fs.stat(path.join(root, folder))).isDirectory()).toBe(true);
    const description = await fs.readFile(path.join(root, 'agents', 'north-cfo', 'description.md'), 'utf8');
    expect(description).toMatch(/## Duties[\s\S]*finance, cost, pricing[\s\S]*## Tool paths[\s\S]*## Business background/);
    expect(description).toContain(`Company folder: ${path.join(root, '03_finance')}`);
  });

  it('runs again without changing anything, and says so step by step', async () => {
    const before = await status('cell-north');
    const res = await initialize(initializeBody('cell-north', path.join(roots(), 'north')));
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ company: { outcome: 'reused' }, record: 'unchanged' });
    expect(res.body.data.runId).not.toBe(before.runs[0].runId);
    await finished(res.body.data.workflowId, res.body.data.runId);

    const after = await status('cell-north');
    expect(after.runs).toHaveLength(2);
    const outcomes = after.runs[0].steps.flatMap((st: { changes: { outcome: string }[] }) => st.changes.map((c) => c.outcome));
    expect(outcomes.length).toBeGreaterThan(20);
    expect(new Set(outcomes)).toEqual(new Set(['reused']));
    expect(after.server.instanceId).toBe(before.server.instanceId);
    expect(after.agentProfiles.map((p: { rid: string }) => p.rid).sort()).toEqual(
      before.agentProfiles.map((p: { rid: string }) => p.rid).sort(),
    );
    expect(await localInstances()).toHaveLength(1);
  });

  it('refreshes a description file that was changed by hand', async () => {
    const file = path.join(roots(), 'north', 'agents', 'north-cto', 'description.md');
    await fs.writeFile(file, 'edited');
    const res = await svc.call('POST', '/api/v1/control-plane/companies/cell-north/agent-profiles', { headers: bearer(op) });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ workflowId: 'company-init:cell-north:agent-profiles', steps: ['agent-profiles'] });
    await finished(res.body.data.workflowId, res.body.data.runId);
    const [run] = (await status('cell-north')).runs;
    const changes = run.steps[0].changes as { item: string; outcome: string }[];
    expect(changes.find((c) => c.item === 'north-cto')?.outcome).toBe('refreshed');
    expect(changes.filter((c) => c.outcome === 'reused')).toHaveLength(9);
    expect(await fs.readFile(file, 'utf8')).toMatch(/^# north-cto/);
    expect(changes.find((c) => c.item === 'north-cto')).toMatchObject({ note: 'hand edit kept in description.md.previous' });
    expect(await fs.readFile(`${file}.previous`, 'utf8')).toBe('edited');
  });

  it('runs one part on its own: cloud-instance reuses the instance, folders the folders', async () => {
    for (const part of ['cloud-instance', 'folders']) {
      const res = await svc.call('POST', `/api/v1/control-plane/companies/cell-north/${part}`, { headers: bearer(op) });
      expect(res.status).toBe(202);
      await finished(res.body.data.workflowId, res.body.data.runId);
      const [run] = (await status('cell-north')).runs;
      expect(run.part).toBe(part);
      expect(
        run.steps
          .flatMap((st: { changes: { outcome: string }[] }) => st.changes.map((c) => c.outcome))
          .every((o: string) => o === 'reused'),
      ).toBe(true);
    }
    expect(await localInstances()).toHaveLength(1);
  });

  it('lets two first calls at once share one company', async () => {
    const body = initializeBody('cell-twice', path.join(roots(), 'twice'));
    const answers = await Promise.all([initialize(body), initialize(body)]);
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    expect(answers.map((a) => a.body.data.company.outcome).sort()).toEqual(['created', 'reused']);
    for (const a of answers) await finished(a.body.data.workflowId, a.body.data.runId);
    expect(await svc.database.db.selectFrom('companies').select('id').where('cell_id', '=', 'cell-twice').execute()).toHaveLength(1);
    expect((await status('cell-twice')).status).toBe('completed');
  });

  it('reuses an existing company', async () => {
    await createOrganization(svc, op, 'cell-existing', 'Existing Co');
    const res = await initialize(initializeBody('cell-existing', path.join(roots(), 'existing')));
    expect(res.body.data.company).toEqual({ cellId: 'cell-existing', outcome: 'reused' });
    await finished(res.body.data.workflowId, res.body.data.runId);
    expect((await status('cell-existing')).status).toBe('completed');
  });

  it('surfaces a failing step with its error, never writes through a symlink, and runs again once fixed', async () => {
    const root = path.join(roots(), 'trap');
    const outside = path.join(roots(), 'outside');
    await fs.mkdir(root, { recursive: true });
    await fs.mkdir(outside);
    await fs.symlink(outside, path.join(root, '03_finance'));
    const res = await initialize(initializeBody('cell-trap', root));
    await expect(finished(res.body.data.workflowId, res.body.data.runId)).rejects.toThrow();
    const s = await status('cell-trap');
    expect(s.status).toBe('failed');
    expect(s.failingStep).toMatchObject({ name: 'folders', attempts: 1 });
    expect(s.failingStep.lastError).toMatch(/symbolic link/);
    expect(s.runs[0].error).toMatch(/^folders: /);
    expect(await fs.readdir(outside)).toEqual([]);

    await fs.rm(path.join(root, '03_finance'));
    const again = await initialize(initializeBody('cell-trap', root));
    await finished(again.body.data.workflowId, again.body.data.runId);
    expect((await status('cell-trap')).status).toBe('completed');
  });

  it('/proc/self rootPath in a record stored before the allowed root: the folders step refuses it at once (it spun a core on a recursive mkdir)', async () => {
    const first = await initialize(initializeBody('cell-legacy', path.join(roots(), 'legacy')));
    await finished(first.body.data.workflowId, first.body.data.runId);
    const { id } = await svc.database.db
      .selectFrom('companies')
      .select('id')
      .where('cell_id', '=', 'cell-legacy')
      .executeTakeFirstOrThrow();
    await svc.database.db
      .updateTable('company_provisioning')
      .set({ root_path: '/proc/self/fd/legacy' })
      .where('company_id', '=', id)
      .execute();

    const res = await svc.call('POST', '/api/v1/control-plane/companies/cell-legacy/folders', { headers: bearer(op) });
    expect(res.status).toBe(202);
    await expect(finished(res.body.data.workflowId, res.body.data.runId)).rejects.toThrow();
    const s = await status('cell-legacy');
    expect(s.failingStep).toMatchObject({ name: 'folders', attempts: 1 });
    expect(s.failingStep.lastError).toMatch(/\/proc\/self\/fd\/legacy lies in \/proc/);
  });

  it('dry run: answers the plan and starts nothing', async () => {
    const runsBefore = (await svc.temporal!.client.workflow.count('WorkflowType = "companyInitialization"')).count;
    const res = await initialize(initializeBody('cell-dry', path.join(roots(), 'dry')), { 'x-svc-dry-run': 'true' });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ dryRun: true, plan: { wouldStartOrJoin: { workflowId: 'company-init:cell-dry' } } });
    expect(await svc.database.db.selectFrom('companies').select('id').where('cell_id', '=', 'cell-dry').execute()).toEqual([]);
    expect(await svc.database.db.selectFrom('outbox').selectAll().execute()).toEqual([]);
    expect((await svc.temporal!.client.workflow.count('WorkflowType = "companyInitialization"')).count).toBe(runsBefore);
    await expect(fs.stat(path.join(roots(), 'dry'))).rejects.toThrow();
  });

  it('is for operators only, and a part needs an initialized company', async () => {
    await createOrganization(svc, op, 'cell-plain', 'Plain Co');
    await createUser(svc, op, 'plain-dev', [{ cellId: 'cell-plain', role: 'developer', admin: true }]);
    const dev = await passwordKey(svc, 'plain-dev');
    const refused = await svc.call('POST', '/api/v1/control-plane/companies/initialize', {
      body: initializeBody('cell-plain', path.join(roots(), 'plain')),
      headers: bearer(dev),
    });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    const statusRefused = await svc.call('GET', '/api/v1/control-plane/companies/cell-plain/provisioning-status', { headers: bearer(dev) });
    expect(statusRefused.status).toBe(403);

    const part = await svc.call('POST', '/api/v1/control-plane/companies/cell-plain/folders', { headers: bearer(op) });
    expect([part.status, part.body.error.code]).toEqual([409, 'conflict']);
    const unknown = await svc.call('POST', '/api/v1/control-plane/companies/cell-nobody/folders', { headers: bearer(op) });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'organization_not_found']);
    expect((await status('cell-plain')).status).toBe('not_started');
  });

  it('refuses forbidden data anywhere in the request and stores nothing of it', async () => {
    for (const [field, value] of [
      ['nameEn', 'AKIAIOSFODNN7EXAMPLE'],
      ['nameZh', '-----BEGIN PRIVATE KEY-----'],
      ['companyKey', 'svc-dk-abcdefghijkl'],
      ['nameEn', 'Bearer abcdefghijklmnop'],
      ['nameZh', 'postgres://app:pw@db:5432/prod'],
      ['nameEn', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ] as const) {
      const res = await initialize(initializeBody('cell-smuggler', path.join(roots(), 'smuggler'), { [field]: value }));
      expect([res.status, res.body.error.code], value).toEqual([400, 'invalid_payload']);
      expect(res.body.error.details.problems).toEqual([
        { path: field, code: 'forbidden_data', message: expect.stringMatching(/metadata only/) },
      ]);
    }
    const credentialField = await initialize({
      ...initializeBody('cell-smuggler', path.join(roots(), 'smuggler')),
      cloud: { profile: 'ops', accountId: '123456789012', region: 'eu-central-1', instanceName: 'x', secretAccessKey: 'abc' },
    });
    expect([credentialField.status, credentialField.body.error.code]).toEqual([400, 'invalid_payload']);
    expect(await svc.database.db.selectFrom('companies').select('id').where('cell_id', '=', 'cell-smuggler').execute()).toEqual([]);
    expect(await svc.database.db.selectFrom('outbox').selectAll().execute()).toEqual([]);
  });

  it('refuses unknown fields and relative or dotted root paths with their path', async () => {
    for (const [body, where] of [
      [initializeBody('cell-bad', 'relative/root'), 'rootPath'],
      [initializeBody('cell-bad', '/srv/../etc'), 'rootPath'],
      [{ ...initializeBody('cell-bad', '/srv/bad'), extra: 1 }, 'extra'],
      [
        initializeBody('cell-bad', '/srv/bad', { cloud: { profile: 'p', accountId: '1', region: 'eu-central-1', instanceName: 'x' } }),
        'cloud.accountId',
      ],
    ] as const) {
      const res = await initialize(body);
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_payload']);
      expect(res.body.error.details.problems.map((p: { path: string }) => p.path)).toContain(where);
    }
  });
});
