import type { WorkflowStep } from '../../schemas/manifest/index.ts';
import { workflowSchema } from '../../schemas/manifest/workflow.ts';
import { channelWorkflow } from '../apps/index.ts';
import type { Db, WorkflowTrigger } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../security/index.ts';
import { assertTriggerMayStart } from '../usage/index.ts';
import { beginRunRecord, findRun, recordTemporalRunId } from './runs.ts';

export interface BeginRunInput {
  appId: string;
  trigger: WorkflowTrigger;
  /** The Temporal workflow id of this run. */
  workflowId: string;
  /** The Temporal run id (recorded beside svc's run id; runs begun by an older worker have none). */
  temporalRunId?: string | undefined;
  /** An API run's record, made by execute before the run started. */
  runId?: string | undefined;
  /** The workflow's time (ISO): the server's clock, which tests skip ahead. */
  at: string;
  /** For change triggers: the object types that changed. */
  objectTypes?: string[] | undefined;
}

export type BegunRun =
  | {
      skipped: false;
      runId: string;
      /** The app version the run runs (the workflow labels itself with it in Temporal). */
      version: string;
      steps: WorkflowStep[];
      scope: { input: unknown; trigger: Record<string, unknown>; run: Record<string, unknown> };
    }
  | { skipped: true; reason: string };

/**
 * The first activity of every run. A schedule or change trigger starts nothing while the app's
 * compute minutes are used up (until the monthly reset) or when production has no workflow any
 * more; otherwise it records the run (once per workflow id, so a retried activity finds it).
 */
export async function beginRun(db: Db, input: BeginRunInput): Promise<BegunRun> {
  const at = new Date(input.at);
  const trigger = { kind: input.trigger, at: input.at, ...(input.objectTypes ? { objectTypes: input.objectTypes } : {}) };
  if (input.runId !== undefined) {
    const run = await findRun(db, input.runId);
    if (!run) return { skipped: true, reason: 'run not found' };
    const version = await db
      .selectFrom('app_versions')
      .select(['manifest', 'version'])
      .where('id', '=', run.version_id)
      .executeTakeFirstOrThrow();
    const workflow = workflowSchema.parse((version.manifest as { workflow: unknown }).workflow);
    await recordTemporalRunId(db, run.id, input.temporalRunId);
    return {
      skipped: false,
      runId: run.id,
      version: version.version,
      steps: workflow.steps,
      scope: { input: run.input, trigger, run: { id: run.id, startedAt: run.started_at.toISOString() } },
    };
  }
  try {
    await assertTriggerMayStart(db, { now: () => at }, input.appId);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'quota_exhausted') return { skipped: true, reason: err.message };
    throw err;
  }
  const current = await channelWorkflow(db, input.appId, 'production');
  if (!current) return { skipped: true, reason: 'production has no workflow' };
  const run = await beginRunRecord(db, {
    id: newId('wfr'),
    appId: input.appId,
    versionId: current.versionId,
    channel: 'production',
    trigger: input.trigger,
    workflowId: input.workflowId,
    temporalRunId: input.temporalRunId ?? null,
    input: {},
    startedAt: at,
  });
  return {
    skipped: false,
    runId: run.id,
    version: current.version,
    steps: current.workflow.steps,
    scope: { input: {}, trigger, run: { id: run.id, startedAt: input.at } },
  };
}
