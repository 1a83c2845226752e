import type { ProvisioningPart } from '../db/database.ts';

// The business key of a provisioning run. The API answers it and operators find the run by it
// in the Temporal UI, so the domain names it; worker/shared.ts re-exports it for the adapter.

/** `company-init:<cellId>` for a full run, `company-init:<cellId>:<part>` for a run of one part. */
export function provisioningWorkflowId(cellId: string, part: ProvisioningPart): string {
  return part === 'all' ? `company-init:${cellId}` : `company-init:${cellId}:${part}`;
}
