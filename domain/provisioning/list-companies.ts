import type { DbOrTrx } from '../db/index.ts';
import type { CloudProvider } from './cloud-provider.ts';
import type { CompanyRootPolicy } from './company-root.ts';
import { getProvisioningStatus } from './get-provisioning-status.ts';
import type { LiveRunObserver } from './live-runs.ts';

export interface ListCompaniesInput {
  limit: number;
  /** Continue after this cell id (the previous page's `next`). */
  after?: string | undefined;
}

/**
 * The control plane's overview: every company by cell id, one page at a time, with its
 * provisioning state, last run, instance state and drift count, each as provisioning-status
 * says it (one status per company of the page, so the page size bounds the work; each look at
 * the provider is bounded in time).
 */
export async function listProvisionedCompanies(
  db: DbOrTrx,
  deps: { liveRuns?: LiveRunObserver | undefined; companyRoot: CompanyRootPolicy; cloud?: CloudProvider | undefined },
  input: ListCompaniesInput,
) {
  let q = db
    .selectFrom('companies')
    .select(['cell_id', 'name'])
    .orderBy('cell_id')
    .limit(input.limit + 1);
  if (input.after) q = q.where('cell_id', '>', input.after);
  const rows = await q.execute();
  const page = rows.slice(0, input.limit);
  const companies = [];
  for (const row of page) {
    const s = await getProvisioningStatus(db, deps.liveRuns, row.cell_id, deps.companyRoot, deps.cloud);
    const last = s.runs[0];
    companies.push({
      cellId: row.cell_id,
      name: row.name,
      companyKey: s.company?.companyKey ?? null,
      status: s.status,
      lastRun: last
        ? {
            workflowId: last.workflowId,
            runId: last.runId,
            part: last.part,
            status: last.status,
            startedAt: last.startedAt,
            finishedAt: last.finishedAt,
            error: last.error,
          }
        : null,
      instance: s.server ? { instanceId: s.server.instanceId, state: s.server.state, remedy: s.server.remedy } : null,
      driftCount: s.drift?.count ?? null,
      pendingMove: s.company?.pendingMove != null,
    });
  }
  return { companies, next: rows.length > input.limit ? (page.at(-1)?.cell_id ?? null) : null };
}
