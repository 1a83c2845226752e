import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { type CloudProvider, DEAD_STATES, instanceRemedy } from './cloud-provider.ts';
import { detectInstanceDrift } from './detect-instance-drift.ts';
import type { LiveRunObserver } from './live-runs.ts';
import { activeRun, loadProvisioning, lockCompany, recordReplacement } from './repository.ts';
import { type QueuedRun, requestProvisioning } from './request-provisioning.ts';

/**
 * F2 with `{"replace": true}`: the recorded instance is dead (terminated or shutting down), so its
 * id goes on record, the client token moves to the next generation and a cloud-instance run
 * creates a new instance. Replaces once: a second call while that replacement is still to be
 * made joins it; once the new instance is recorded, replace is refused (it is not dead). With the
 * cloud provider, its word counts over the record: an instance terminated in the console (or
 * unknown to the provider) is replaced without a run first having to record its state.
 */
export async function replaceCloudInstance(
  db: DbOrTrx,
  input: { cellId: string; accountId: string },
  live: LiveRunObserver | undefined,
  cloud?: CloudProvider,
): Promise<QueuedRun & { replacing: string }> {
  const company = await lockCompany(db, input.cellId);
  const record = await loadProvisioning(db, input.cellId);
  const current = record.instance;
  if (!current) {
    throw new DomainError(
      'conflict',
      `Company ${input.cellId} has no instance on record; POST cloud-instance without replace creates one.`,
    );
  }
  const underway = record.replaced_instances.some((r) => r.instanceId === current.instanceId);
  if (!underway) {
    const provider = !DEAD_STATES.has(current.state) && cloud ? await detectInstanceDrift(cloud, record) : null;
    const gone = provider?.entries.some((e) => e.kind === 'missing' && e.name === current.instanceId);
    const state = gone ? 'terminated' : (provider?.state ?? current.state);
    if (!DEAD_STATES.has(state)) {
      throw new DomainError(
        'conflict',
        `Instance ${current.instanceId} is ${provider?.state ? 'reported by the provider' : 'recorded'} as ${state}; only a terminated instance is replaced. ` +
          (instanceRemedy(input.cellId, state) ?? 'Run cloud-instance without replace to refresh its state.'),
        { details: { instanceId: current.instanceId, state } },
      );
    }
    const running = await activeRun(db, company.id, live);
    if (running) {
      throw new DomainError(
        'conflict',
        `A provisioning run of ${input.cellId} is in progress (${running.workflowId}); replace the instance once it has ended.`,
        { details: { running } },
      );
    }
    await recordReplacement(db, company.id, {
      instanceId: current.instanceId,
      state,
      replacedAt: new Date().toISOString(),
      generation: record.instance_generation + 1,
    });
  }
  const queued = await requestProvisioning(db, { cellId: input.cellId, part: 'cloud-instance', accountId: input.accountId });
  return { ...queued, replacing: current.instanceId };
}
