import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, operatorKey } from '../../support/identity.ts';
import { initializeBody } from '../../support/provisioning.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Where company initialization may write (SVC_COMPANY_ROOT) and what its part routes accept, over
// HTTP on the api role: a run that is asked for waits in the outbox, so "no run" is an empty
// outbox and no provisioning request.

const INITIALIZE = '/api/v1/control-plane/companies/initialize';

/** Nothing of the company was stored and no run was asked for. */
async function nothingQueued(svc: TestService, cellId: string) {
  const db = svc.database.db;
  expect(await db.selectFrom('companies').select('id').where('cell_id', '=', cellId).execute()).toEqual([]);
  expect(await db.selectFrom('provisioning_requests').select('id').execute()).toEqual([]);
  expect(await db.selectFrom('outbox').select('id').execute()).toEqual([]);
}

function expectRefusedRoot(res: { status: number; body: any }) {
  expect([res.status, res.body.error?.code], JSON.stringify(res.body)).toEqual([400, 'invalid_payload']);
  expect(res.body.error.details.problems).toEqual([{ path: 'rootPath', code: 'path_not_allowed', message: expect.any(String) }]);
}

describe('rootPath under the default company root (SVC_COMPANY_ROOT)', () => {
  let svc: TestService;
  let op: string;
  let outside: string;
  beforeAll(async () => {
    svc = await startTestService({ env: { SVC_RUN_START_WAIT_MS: '0' } });
    op = await operatorKey(svc);
    outside = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-outside-'));
  }, 60_000);
  afterAll(async () => {
    await svc.close();
    await fs.rm(outside, { recursive: true, force: true });
  });
  const initialize = (body: unknown, headers: Record<string, string> = {}) =>
    svc.call('POST', INITIALIZE, { body, headers: { ...bearer(op), ...headers } });

  it('/etc and /root/.ssh refused (they passed validation), in a dry run too, before anything is stored or queued', async () => {
    for (const rootPath of ['/etc', '/etc/cron.d', '/root/.ssh', '/root/.ssh/authorized_keys.d']) {
      const res = await initialize(initializeBody('cell-etc', rootPath));
      expectRefusedRoot(res);
      expect(res.body.error.details.problems[0].message).toContain(`not under the company root ${svc.companyRoot}`);
      expectRefusedRoot(await initialize(initializeBody('cell-etc', rootPath), { 'x-svc-dry-run': 'true' }));
    }
    await nothingQueued(svc, 'cell-etc');
    await expect(fs.stat('/root/.ssh/authorized_keys.d')).rejects.toThrow();
  });

  it('refuses a rootPath that leaves the company root through a symlink, and makes nothing', async () => {
    await fs.mkdir(svc.companyRoot, { recursive: true });
    await fs.symlink(outside, path.join(svc.companyRoot, 'escape'));
    const res = await initialize(initializeBody('cell-escape', path.join(svc.companyRoot, 'escape', 'north')));
    expectRefusedRoot(res);
    expect(res.body.error.details.problems[0].message).toContain(`leads to ${path.join(outside, 'north')}`);
    expect(await fs.readdir(outside)).toEqual([]);
    await nothingQueued(svc, 'cell-escape');
  });

  describe('the part routes validate their body', () => {
    const cellId = 'cell-parts';
    const part = (name: string, init: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) =>
      svc.call('POST', `/api/v1/control-plane/companies/${cellId}/${name}`, {
        ...init,
        headers: { ...bearer(op), ...(init.rawBody === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      });
    const requests = async () => (await svc.database.db.selectFrom('provisioning_requests').select('id').execute()).length;
    const intents = async () => (await svc.database.db.selectFrom('outbox').select('id').execute()).length;

    beforeAll(async () => {
      const res = await initialize(initializeBody(cellId, path.join(svc.companyRoot, 'parts')));
      expect(res.status, JSON.stringify(res.body)).toBe(202);
    });

    it('malformed JSON on a part route → 400 and no run (it answered 202 and started one)', async () => {
      const [before, queuedBefore] = [await requests(), await intents()];
      for (const name of ['cloud-instance', 'folders', 'agent-profiles']) {
        const res = await part(name, { rawBody: '{"rootPath": "/proc/self' });
        expect([res.status, res.body.error.code], name).toEqual([400, 'malformed_json']);
      }
      expect([await requests(), await intents()]).toEqual([before, queuedBefore]);
    });

    it('refuses any field, another JSON type and a non-JSON body with its path, and starts nothing', async () => {
      const [before, queuedBefore] = [await requests(), await intents()];
      const field = await part('folders', { body: { rootPath: '/proc/self/fd' } });
      expect([field.status, field.body.error.code]).toEqual([400, 'invalid_payload']);
      expect(field.body.error.details.problems.map((p: { path: string }) => p.path)).toEqual(['rootPath']);
      for (const rawBody of ['[]', '"folders"', 'null']) {
        const res = await part('agent-profiles', { rawBody });
        expect([res.status, res.body.error.code], rawBody).toEqual([400, 'invalid_payload']);
      }
      const text = await part('cloud-instance', { rawBody: 'x=1', headers: { 'content-type': 'text/plain' } });
      expect([text.status, text.body.error.code]).toEqual([400, 'malformed_json']);
      expect([await requests(), await intents()]).toEqual([before, queuedBefore]);
    });

    it('are documented with an optional body of no fields (ProvisioningPartRequest), cloud-instance with replace only', async () => {
      const doc = (await svc.call('GET', '/api/v1/openapi.json')).body;
      for (const [name, schema] of [
        ['cloud-instance', 'CloudInstanceRequest'],
        ['folders', 'ProvisioningPartRequest'],
        ['agent-profiles', 'ProvisioningPartRequest'],
      ]) {
        const body = doc.paths[`/api/v1/control-plane/companies/{cell}/${name}`].post.requestBody;
        expect(body.required, name).toBe(false);
        expect(body.content['application/json'].schema.$ref).toBe(`#/components/schemas/${schema}`);
      }
      expect(doc.components.schemas.ProvisioningPartRequest).toMatchObject({ type: 'object', properties: {}, additionalProperties: false });
      expect(doc.components.schemas.CloudInstanceRequest).toMatchObject({
        type: 'object',
        properties: { replace: { type: 'boolean' } },
        additionalProperties: false,
      });
      expect(doc.paths['/api/v1/control-plane/companies/initialize'].post.requestBody.required).toBe(true);
    });

    it('accepts no body or {} and queues the part; a dry run answers the plan and queues nothing', async () => {
      const before = await requests();
      const none = await part('folders');
      expect(none.status, JSON.stringify(none.body)).toBe(202);
      const empty = await part('agent-profiles', { body: {} });
      expect(empty.status, JSON.stringify(empty.body)).toBe(202);
      expect(empty.body.data).toMatchObject({ workflowId: `company-init:${cellId}:agent-profiles`, steps: ['agent-profiles'] });
      expect(await requests()).toBe(before + 2);

      const queued = await intents();
      const dry = await part('cloud-instance', { body: {}, headers: { 'x-svc-dry-run': 'true' } });
      expect(dry.status).toBe(202);
      expect(dry.body.data).toMatchObject({
        dryRun: true,
        plan: { wouldStartOrJoin: { workflowId: `company-init:${cellId}:cloud-instance` } },
      });
      expect([await requests(), await intents()]).toEqual([before + 2, queued]);
    });
  });
});

describe('rootPath with SVC_COMPANY_ROOT=/: the system and data directories stay refused', () => {
  let svc: TestService;
  let op: string;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-data-'));
    for (const folder of ['postgres', 'temporal']) await fs.mkdir(path.join(dataDir, folder));
    svc = await startTestService({ env: { SVC_COMPANY_ROOT: '/', SVC_DATA_DIR: dataDir, SVC_RUN_START_WAIT_MS: '0' } });
    op = await operatorKey(svc);
  }, 60_000);
  afterAll(async () => {
    await svc.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });
  const initialize = (body: unknown) => svc.call('POST', INITIALIZE, { body, headers: bearer(op) });

  it('/proc/self rootPath refused (the folders step spun a CPU core forever on it), and /sys, /dev', async () => {
    for (const rootPath of ['/proc/self/fd/svc', '/proc/self', '/proc/1/root/etc', '/sys/fs/svc', '/dev/shm/svc']) {
      const res = await initialize(initializeBody('cell-proc', rootPath));
      expectRefusedRoot(res);
      expect(res.body.error.details.problems[0].message).toMatch(/lies in \/(proc|sys|dev)\b/);
    }
    await nothingQueued(svc, 'cell-proc');
  });

  it('PG data dir refused (it was accepted and written into as root), and every service folder of SVC_DATA_DIR', async () => {
    const { rows } = await sql<{ data_directory: string }>`SHOW data_directory`.execute(svc.database.db);
    const clusterDir = rows[0]!.data_directory;
    for (const rootPath of [
      clusterDir,
      path.join(clusterDir, 'base'),
      path.join(clusterDir, 'svc-company'),
      dataDir,
      path.join(dataDir, 'postgres'),
      path.join(dataDir, 'temporal', 'north'),
      path.join(dataDir, 'companies', 'north'),
    ]) {
      expectRefusedRoot(await initialize(initializeBody('cell-pgdata', rootPath)));
    }
    await nothingQueued(svc, 'cell-pgdata');
    await expect(fs.stat(path.join(clusterDir, 'svc-company'))).rejects.toThrow();
  });

  it('accepts any other path', async () => {
    const res = await initialize(initializeBody('cell-anywhere', path.join(os.tmpdir(), 'svc-anywhere', 'north')));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
  });
});
