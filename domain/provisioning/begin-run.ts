import type { Db, ProvisioningPart } from '../db/index.ts';
import { insertRun, loadProvisioning } from './repository.ts';
import type { RunContext } from './run-step.ts';

/** What the steps of a run work on, as the Web UI's timeline names them (metadata only). */
export interface RunTargets {
  /** The company root. */
  root: string;
  /** `<instanceName> in <region>`. */
  instance: string;
  /** `<from> -> <to>` of a waiting move; null when none waits. */
  move: string | null;
}

/**
 * The first step of every run: its row, so the status lists it from the start. Idempotent.
 * Says whether a move (initialize with apply "move") waits, so the run schedules that step only
 * then, and what each step works on (the steps' summaries).
 */
export async function beginRun(
  db: Db,
  run: RunContext,
  input: { cellId: string; part: ProvisioningPart },
): Promise<{ pendingMove: boolean; targets: RunTargets }> {
  const record = await loadProvisioning(db, input.cellId);
  await insertRun(db, { runId: run.runId, workflowId: run.workflowId, companyId: record.company_id, part: input.part });
  const move = record.pending_move;
  return {
    pendingMove: move !== null,
    targets: {
      root: record.root_path,
      instance: `${record.cloud.instanceName} in ${record.cloud.region}`,
      move: move && (move.fromRoot === move.toRoot ? `${move.fromKey} -> ${move.toKey}` : `${move.fromRoot} -> ${move.toRoot}`),
    },
  };
}
