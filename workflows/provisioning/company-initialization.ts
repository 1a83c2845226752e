import { ActivityFailure, ApplicationFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import { type CompanyInitializationInput, type ProvisioningProgress, partsOf, provisioningProgressQuery } from '../contract.ts';

// One run of company initialization: each part is a step (an activity with its own timeouts and
// retry policy); the activities do the effects and write metadata back at the end of each step.
// A step that gives up fails the run with its error; calling initialize again starts a new run.

/** Five attempts, 1 s, 2 s, 4 s, 8 s apart: a passing glitch is absorbed, a lasting fault surfaces in a minute. */
const STEP_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 };

// Every activity heartbeats while it works, so a worker that dies mid-step is noticed within its
// heartbeat timeout and the step is retried on another worker; each step is safe to run again.
// Records and file steps are a few database writes and small files: a heartbeat every second, 5 s
// of silence is a dead worker (their start-to-close timeouts only bound a hung one).
const records = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
// The create call finds the instance by tag or client token on its retry instead of creating a second.
const create = proxyActivities<Activities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '10 seconds', retry: STEP_RETRY });
const wait = proxyActivities<Activities>({ startToCloseTimeout: '15 minutes', heartbeatTimeout: '30 seconds', retry: STEP_RETRY });
const files = proxyActivities<Activities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '5 seconds', retry: STEP_RETRY });

/**
 * Each activity carries its summary "<step> <target>" (user metadata): the Web UI's timeline names
 * it so. `targets` is absent when replaying a run begun before it existed; summaries never affect replay.
 */
const named = (summary: string) => ({ summary });

export async function companyInitialization(input: CompanyInitializationInput): Promise<ProvisioningProgress> {
  const progress: ProvisioningProgress = { part: input.part, currentStep: null, completedSteps: [], failedStep: null };
  setHandler(provisioningProgressQuery, () => progress);

  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    progress.currentStep = name;
    try {
      const result = await work();
      progress.completedSteps.push(name);
      return result;
    } catch (err) {
      const error = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
      progress.currentStep = null;
      progress.failedStep = name;
      await records.finishProvisioningRun.executeWithOptions(named(`finish: ${name} failed`), [{ status: 'failed', step: name, error }]);
      throw ApplicationFailure.nonRetryable(`${name}: ${error}`, 'ProvisioningStepFailed');
    }
  };

  const { pendingMove, targets } = await records.beginProvisioningRun.executeWithOptions(named(`begin ${input.part} of ${input.cellId}`), [
    input,
  ]);
  const parts = partsOf(input.part);
  // A move asked for by initialize with apply "move" comes before anything touches the tree.
  if (pendingMove && parts.some((p) => p !== 'cloud-instance')) {
    await step('move', () => files.applyPendingMove.executeWithOptions(named(`move ${targets?.move}`), [input.cellId]));
  }
  for (const part of parts) {
    if (part === 'cloud-instance') {
      const { instanceId } = await step('cloud-instance', () =>
        create.ensureCloudInstance.executeWithOptions(named(`cloud-instance ${targets?.instance}`), [input.cellId]),
      );
      await step('instance-running', () =>
        wait.awaitInstanceRunning.executeWithOptions(named(`instance-running ${instanceId}`), [{ cellId: input.cellId, instanceId }]),
      );
    } else if (part === 'folders') {
      await step('folders', () => files.createFolders.executeWithOptions(named(`folders in ${targets?.root}`), [input.cellId]));
    } else {
      await step('agent-profiles', () =>
        files.writeAgentProfiles.executeWithOptions(named(`agent-profiles in ${targets?.root}/agents`), [input.cellId]),
      );
    }
  }
  progress.currentStep = null;
  await records.finishProvisioningRun.executeWithOptions(named('finish: completed'), [{ status: 'completed' }]);
  return progress;
}
