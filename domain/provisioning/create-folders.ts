import path from 'node:path';
import type { Db } from '../db/index.ts';
import { EXECUTIVE_ROLES } from './catalog.ts';
import type { CompanyRootPolicy } from './company-root.ts';
import { loadProvisioning, saveFolder } from './repository.ts';
import { type RunContext, runStep } from './run-step.ts';
import { ensureDirectory, ensureRoot } from './safe-paths.ts';

/** Step folders: the ten executive folders under the root (created or reused), recorded as they are. */
export async function createFolders(
  { db, companyRoot }: { db: Db; companyRoot: CompanyRootPolicy },
  run: RunContext,
  cellId: string,
): Promise<{ root: string }> {
  return runStep(db, run, 'folders', async (changes) => {
    const record = await loadProvisioning(db, cellId);
    const root = await ensureRoot(companyRoot, record.root_path);
    for (const { folder } of EXECUTIVE_ROLES) {
      const created = await ensureDirectory(root, [folder]);
      await saveFolder(db, record.company_id, folder, path.join(root, folder));
      changes.push({ item: folder, outcome: created ? 'created' : 'reused' });
    }
    return { root };
  });
}
