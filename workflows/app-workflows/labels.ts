import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { type RunLabels, runLabels, SVC_SEARCH_ATTRIBUTES, type SvcKind } from '../contract.ts';

// Labels (memo and search attributes: schemas/workflow-keys.ts) of the workflows an app's workflows
// start themselves, and of a run once it has begun: the Web UI names their company and app.

/** A child's labels: its kind, with the company and app of the workflow starting it. */
export function childLabels(kind: SvcKind) {
  const info = workflowInfo();
  const memo = (info.memo ?? {}) as { companyName?: unknown };
  const labels: RunLabels = {
    kind,
    cellId: info.typedSearchAttributes.get(SVC_SEARCH_ATTRIBUTES.cellId),
    appSlug: info.typedSearchAttributes.get(SVC_SEARCH_ATTRIBUTES.appSlug),
    companyName: typeof memo.companyName === 'string' ? memo.companyName : undefined,
  };
  return runLabels(labels);
}

/**
 * A run that has begun: svc's run id (`SvcRunId = 'wfr_…'` finds it in the Web UI) and the version it
 * runs, known only now for scheduled and change runs. Search attributes only: SDK 1.24's worker
 * leaves an upserted memo out of the payload codec, so it would reach Temporal unsealed. Patched:
 * histories of runs begun before have no upsert.
 */
export function labelBegunRun(runId: string, version: string): void {
  if (!patched('svc-run-labels')) return;
  upsertSearchAttributes(runLabels({ kind: 'app-run', runId, version }).typedSearchAttributes);
}
