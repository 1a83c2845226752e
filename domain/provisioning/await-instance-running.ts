import { DomainError } from '../errors.ts';
import { DEAD_STATES, instanceRemedy, STOPPED_STATES } from './cloud-provider.ts';
import { type CloudDeps, instanceRequest, storeInstance } from './ensure-cloud-instance.ts';
import { loadProvisioning } from './repository.ts';
import { type RunContext, runStep } from './run-step.ts';

/**
 * Step instance-running: looks at the instance until it runs, calling `heartbeat` with each
 * state seen (the activity's heartbeat: a dead worker is noticed, a live one is not timed out),
 * then stores its metadata (address, security groups).
 */
export async function awaitInstanceRunning(
  deps: CloudDeps,
  run: RunContext,
  input: { cellId: string; instanceId: string },
  heartbeat: (state: string) => void,
): Promise<{ state: string; address: string | null }> {
  return runStep(deps.db, run, 'instance-running', async (changes) => {
    const record = await loadProvisioning(deps.db, input.cellId);
    const request = instanceRequest(record);
    for (;;) {
      const instance = await deps.cloud.describeInstance(request, input.instanceId);
      heartbeat(instance.state);
      if (instance.state === 'running') {
        const outcome = await storeInstance(deps.db, record, deps.cloud.kind, instance);
        changes.push({ item: `instance ${instance.instanceId} running`, outcome });
        return { state: instance.state, address: instance.address };
      }
      if (DEAD_STATES.has(instance.state) || STOPPED_STATES.has(instance.state)) {
        const outcome = await storeInstance(deps.db, record, deps.cloud.kind, instance);
        changes.push({ item: `instance ${instance.instanceId} ${instance.state}`, outcome });
        throw new DomainError(
          'conflict',
          `Instance ${instance.instanceId} is ${instance.state}; it will not start by itself. ${instanceRemedy(input.cellId, instance.state)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, deps.cloud.pollIntervalMs));
    }
  });
}
