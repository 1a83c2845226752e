import type { ListedRun, RunView } from '../../schemas/app-workflows.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock, TemporalUi } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { appOfCaller } from './app-of-caller.ts';
import { lastRunEventSeq } from './list-run-events.ts';
import type { StepRecord } from './runs.ts';

type RunRow = {
  id: string;
  trigger: RunView['trigger'];
  channel: RunView['channel'];
  version: string;
  status: RunView['status'];
  workflow_id: string;
  temporal_run_id: string | null;
  started_at: Date;
  finished_at: Date | null;
  duration_ms: number | null;
  input: unknown;
  output: unknown;
  error: string | null;
  steps: unknown[];
};

export function runView(row: RunRow): RunView {
  return {
    id: row.id,
    trigger: row.trigger,
    channel: row.channel,
    version: row.version,
    status: row.status,
    workflowId: row.workflow_id,
    temporalRunId: row.temporal_run_id,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    durationMs: row.duration_ms,
    input: row.input,
    output: row.output ?? null,
    error: row.error,
    steps: row.steps as StepRecord[],
  };
}

export function selectRuns(db: DbOrTrx) {
  return db
    .selectFrom('workflow_runs as r')
    .innerJoin('app_versions as v', 'v.id', 'r.version_id')
    .select([
      'r.id',
      'r.trigger',
      'r.channel',
      'v.version',
      'r.status',
      'r.workflow_id',
      'r.temporal_run_id',
      'r.started_at',
      'r.finished_at',
      'r.duration_ms',
      'r.input',
      'r.output',
      'r.error',
      'r.steps',
    ]);
}

/**
 * An app's runs, newest first, each with its steps, its Temporal workflow id and its address in the
 * Temporal Web UI when one is known, for those the policy lets read them (app.workflow.read-runs).
 * `lastEventSeq` is read first: a watcher resuming after it misses no progress of runs not yet
 * listed (it may see some of those listed again).
 */
export async function listRuns(
  deps: { db: DbOrTrx; clock: Clock; temporalUi?: TemporalUi | undefined },
  principal: Principal,
  address: { namespace: string; slug: string },
  page: { limit: number; before?: string | undefined },
): Promise<{ runs: ListedRun[]; lastEventSeq: number }> {
  const { app } = await appOfCaller(deps, principal, address, 'app.workflow.read-runs');
  const lastEventSeq = await lastRunEventSeq(deps.db, app.id);
  let query = selectRuns(deps.db).where('r.app_id', '=', app.id);
  if (page.before) query = query.where('r.started_at', '<', new Date(page.before));
  const rows = await query.orderBy('r.started_at', 'desc').orderBy('r.id', 'desc').limit(page.limit).execute();
  const ui = deps.temporalUi;
  const runs = rows.map((row) => ({
    ...runView(row),
    // The Web UI's own route to a workflow (its latest run; a workflow id has one run in svc).
    temporalUi: ui ? `${ui.url}/namespaces/${encodeURIComponent(ui.namespace)}/workflows/${encodeURIComponent(row.workflow_id)}` : null,
  }));
  return { runs, lastEventSeq };
}
