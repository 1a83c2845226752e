import type { Db, ProvisioningPart } from '../db/index.ts';
import { insertRun, loadProvisioning } from './repository.ts';
import type { RunContext } from './run-step.ts';

/**
 * The first step of every run: its row, so the status lists it from the start. Idempotent.
 * Says whether a move (initialize with apply "move") waits, so the run schedules that step only then.
 */
export async function beginRun(
  db: Db,
  run: RunContext,
  input: { cellId: string; part: ProvisioningPart },
): Promise<{ pendingMove: boolean }> {
  const record = await loadProvisioning(db, input.cellId);
  await insertRun(db, { runId: run.runId, workflowId: run.workflowId, companyId: record.company_id, part: input.part });
  return { pendingMove: record.pending_move !== null };
}
