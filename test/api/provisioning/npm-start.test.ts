import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTIVE_ROLES } from '../../../domain/provisioning/catalog.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { startProcess } from '../../support/process.ts';
import { initializeBody } from '../../support/provisioning.ts';

// End to end as an operator runs it: `npm start` (the entry file, role all, default settings:
// the local cloud provider, the embedded Temporal server with its Web UI), one initialize call,
// the status until completed, and the run in the Web UI's list with readable step names.

let database: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-init-start-'));
});
afterAll(async () => {
  await database?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('company initialization with npm start', () => {
  it('initializes a company on the local provider and shows the run in the Temporal UI', async () => {
    const svc = await startProcess([], {
      DATABASE_URL: database.url,
      SVC_DATA_DIR: dataDir,
      SVC_OPERATOR_LOGIN: 'ops',
      SVC_OPERATOR_PASSWORD: 'start-test-password',
      SVC_LOG_LEVEL: 'info',
    });
    const exit = svc.exited;
    try {
      const call = async (method: string, route: string, body?: unknown, key?: string) => {
        const res = await fetch(svc.ready + route, {
          method,
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const token = await call('POST', '/api/v1/developer/password-tokens', { login: 'ops', password: 'start-test-password' });
      expect(token.status).toBe(201);
      const key = token.body.data.key as string;

      const root = path.join(dataDir, 'companies', 'e2e');
      const accepted = await call('POST', '/api/v1/control-plane/companies/initialize', initializeBody('cell-e2e', root), key);
      expect(accepted.status).toBe(202);
      expect(accepted.body.data).toMatchObject({ workflowId: 'company-init:cell-e2e', runId: expect.any(String) });

      const statusPath = new URL(accepted.body.data.statusUrl).pathname;
      await expect
        .poll(async () => (await call('GET', statusPath, undefined, key)).body.data.status, { timeout: 20_000 })
        .toBe('completed');
      const status = (await call('GET', statusPath, undefined, key)).body.data;
      expect(status.server).toMatchObject({ provider: 'local', state: 'running' });
      expect(status.folders).toHaveLength(10);
      expect(status.agentProfiles).toHaveLength(10);
      for (const { folder } of EXECUTIVE_ROLES) expect((await fs.stat(path.join(root, folder))).isDirectory()).toBe(true);

      const ui = /Temporal UI: +(\S+)/.exec(svc.output())![1]!;
      const listed = (await (await fetch(`${ui}/api/v1/namespaces/default/workflows?query=`)).json()) as any;
      const run = listed.executions.find((e: { execution: { workflowId: string } }) => e.execution.workflowId === 'company-init:cell-e2e');
      expect(run).toMatchObject({ type: { name: 'companyInitialization' }, execution: { runId: accepted.body.data.runId } });
      // The Web UI's "raw history" download: the steps appear under their activity names.
      const raw = `${ui}/api/v1/namespaces/default/workflows/${encodeURIComponent('company-init:cell-e2e')}/run/${run.execution.runId}/history.json`;
      const events = (await (await fetch(raw)).json()) as { activityTaskScheduledEventAttributes?: { activityType: { name: string } } }[];
      const activities = events.flatMap((e) =>
        e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType.name] : [],
      );
      expect(activities).toEqual([
        'beginProvisioningRun',
        'ensureCloudInstance',
        'awaitInstanceRunning',
        'createFolders',
        'writeAgentProfiles',
        'finishProvisioningRun',
      ]);
    } finally {
      svc.child.kill('SIGTERM');
      expect(await exit).toBe(0);
    }
  }, 90_000);
});
