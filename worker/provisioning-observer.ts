import type { Client } from '@temporalio/client';
import type { LiveRun, LiveRunObserver } from '../domain/provisioning/index.ts';
import { provisioningProgressQuery } from '../workflows/contract.ts';

/** Activity type → the step it performs (bookkeeping activities are no step). */
const STEP_OF_ACTIVITY: Record<string, string> = {
  applyPendingMove: 'move',
  ensureCloudInstance: 'cloud-instance',
  awaitInstanceRunning: 'instance-running',
  createFolders: 'folders',
  writeAgentProfiles: 'agent-profiles',
};

/** A status call must not hang on a run whose worker is gone: each look has this long. */
export const LOOK_DEADLINE_MS = 2000;

/** The status endpoint's view of runs in Temporal: describe (pending activity) plus the progress query. */
export function temporalRunObserver(client: Client): LiveRunObserver {
  return {
    async observe(workflowId, runId): Promise<LiveRun | undefined> {
      const handle = client.workflow.getHandle(workflowId, runId);
      try {
        return await client.withDeadline(Date.now() + LOOK_DEADLINE_MS, async () => {
          const described = await handle.describe();
          const running = described.status.name === 'RUNNING';
          const progress = running ? await handle.query(provisioningProgressQuery).catch(() => undefined) : undefined;
          const pending = (described.raw.pendingActivities ?? [])
            .map((a) => ({ a, step: STEP_OF_ACTIVITY[a.activityType?.name ?? ''] }))
            .find((p) => p.step);
          return {
            workflowId,
            runId,
            status: described.status.name,
            currentStep: progress?.currentStep ?? pending?.step ?? null,
            pendingStep: pending
              ? { name: pending.step!, attempt: pending.a.attempt ?? 1, lastFailure: pending.a.lastFailure?.message ?? null }
              : null,
          };
        });
      } catch {
        return undefined;
      }
    },
  };
}
