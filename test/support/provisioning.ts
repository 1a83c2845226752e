import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { loadConfig } from '../../config.ts';
import type { CompanyRootPolicy } from '../../domain/provisioning/company-root.ts';
import { bearer } from './identity.ts';
import type { TestService } from './service.ts';

// Initialize requests and company roots for the control-plane tests and benches.

/** A fresh directory under the system's temporary folder, to hold company roots. */
export const tempRoots = () => fs.mkdtemp(path.join(os.tmpdir(), 'svc-company-roots-'));

/** The policy the service would build with SVC_COMPANY_ROOT=`root`, for tests that call the steps directly. */
export const companyRootAt = (root: string): CompanyRootPolicy =>
  loadConfig({ SVC_DATA_DIR: '/nonexistent-data', SVC_COMPANY_ROOT: root }).companyRoot;

export function initializeBody(cellId: string, rootPath: string, overrides: Record<string, unknown> = {}) {
  const key = cellId.replace(/^cell-/, '');
  return {
    nameEn: `${key} Trading`,
    nameZh: `${key} 贸易`,
    companyKey: key,
    cellId,
    rootPath,
    cloud: { profile: 'ops', accountId: '123456789012', region: 'eu-central-1', instanceName: `${key}-main` },
    ...overrides,
  };
}

/** The control-plane calls of the API tests, as operator `op` of `svc`. */
export function controlPlane(svc: TestService, op: string) {
  return {
    initialize: (body: unknown, headers: Record<string, string> = {}) =>
      svc.call('POST', '/api/v1/control-plane/companies/initialize', { body, headers: { ...bearer(op), ...headers } }),
    /** The provisioning status (asserted 200). */
    status: async (cellId: string) => {
      const res = await svc.call('GET', `/api/v1/control-plane/companies/${cellId}/provisioning-status`, { headers: bearer(op) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data;
    },
    /** Waits for the run an answer started or joined. */
    finished: (run: { workflowId: string; runId: string }) => svc.temporal!.client.workflow.getHandle(run.workflowId, run.runId).result(),
  };
}
