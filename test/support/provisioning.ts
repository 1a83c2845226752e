import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config.ts';
import type { CompanyRootPolicy } from '../../domain/provisioning/company-root.ts';

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
