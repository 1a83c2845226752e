import { partsOf, provisioningWorkflowId } from '../../schemas/workflow-keys.ts';
import type { DbOrTrx, ProvisioningPart } from '../db/index.ts';
import { enqueue } from '../outbox/index.ts';
import { newId } from '../security/index.ts';
import { insertRequest, loadProvisioning } from './repository.ts';

export interface QueuedRun {
  requestId: string;
  cellId: string;
  part: ProvisioningPart;
  workflowId: string;
  steps: readonly string[];
}

/**
 * Asks for a run of `part` for an initialized company: a request row and, in the same
 * transaction, the outbox intent the relay turns into a start with conflict policy
 * use-existing (a run already going under the same workflow id is joined, not doubled).
 */
export async function requestProvisioning(
  db: DbOrTrx,
  input: { cellId: string; part: ProvisioningPart; accountId: string },
): Promise<QueuedRun> {
  const record = await loadProvisioning(db, input.cellId);
  const requestId = newId('prq');
  const workflowId = provisioningWorkflowId(input.cellId, input.part);
  await insertRequest(db, { id: requestId, companyId: record.company_id, part: input.part, workflowId, requestedBy: input.accountId });
  await enqueue(db, { topic: 'company-init.requested', key: requestId, payload: { cellId: input.cellId, part: input.part } });
  return { requestId, cellId: input.cellId, part: input.part, workflowId, steps: partsOf(input.part) };
}
