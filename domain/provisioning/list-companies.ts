import type { DbOrTrx } from '../db/index.ts';
import type { CloudProvider } from './cloud-provider.ts';
import type { CompanyRootPolicy } from './company-root.ts';
import { getProvisioningStatus, type ProvisioningStatus } from './get-provisioning-status.ts';
import type { LiveRunObserver } from './live-runs.ts';

/** Statuses looked at together: the provider's answers (up to 3 s each) overlap, the database is not flooded. */
const STATUSES_AT_ONCE = 8;

export interface ListCompaniesInput {
  limit: number;
  /** Continue after this cell id (the previous page's `next`). */
  after?: string | undefined;
}

/**
 * The control plane's overview: every company by cell id, one page at a time, with its
 * provisioning state, last run, instance state and drift count, each as provisioning-status
 * says it (one status per company of the page, so the page size bounds the work; each look at
 * the provider is bounded in time, and eight companies are looked at together).
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
  const statuses: ProvisioningStatus[] = [];
  for (let i = 0; i < page.length; i += STATUSES_AT_ONCE) {
    const slice = page.slice(i, i + STATUSES_AT_ONCE);
    statuses.push(
      ...(await Promise.all(slice.map((row) => getProvisioningStatus(db, deps.liveRuns, row.cell_id, deps.companyRoot, deps.cloud)))),
    );
  }
  const companies = page.map((row, i) => {
    const s = statuses[i]!;
    const last = s.runs[0];
    return {
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
    };
  });
  return { companies, next: rows.length > input.limit ? (page.at(-1)?.cell_id ?? null) : null };
}
