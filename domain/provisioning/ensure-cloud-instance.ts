import type { Db, InstanceRecord } from '../db/index.ts';
import { type CloudProvider, type InstanceMetadata, type InstanceRequest, instanceClientToken } from './cloud-provider.ts';
import { assertMetadataOnly } from './forbidden-data.ts';
import { loadProvisioning, type ProvisioningRecord, saveInstance } from './repository.ts';
import { type RunContext, runStep } from './run-step.ts';

export interface CloudDeps {
  db: Db;
  cloud: CloudProvider;
}

export function instanceRequest(record: ProvisioningRecord): InstanceRequest {
  return {
    cellId: record.cell_id,
    companyKey: record.company_key,
    ...record.cloud,
    clientToken: instanceClientToken(record.cell_id, record.instance_generation),
  };
}

/** Stores what the provider said, after the guard: metadata only ever reaches the database. */
export async function storeInstance(db: Db, record: ProvisioningRecord, provider: CloudProvider['kind'], found: InstanceMetadata) {
  const instance: InstanceRecord = {
    provider,
    instanceId: found.instanceId,
    state: found.state,
    address: found.address,
    securityGroups: found.securityGroups.map((g) => ({ id: g.id, name: g.name })),
  };
  assertMetadataOnly(instance, 'instance');
  await saveInstance(db, record.company_id, instance);
  const before = record.instance;
  return !before || before.instanceId !== instance.instanceId
    ? 'created'
    : JSON.stringify(before) === JSON.stringify({ ...before, ...instance })
      ? 'reused'
      : 'refreshed';
}

/**
 * Step cloud-instance: the company's instance found by its tag, else created with the
 * cell's client token (a retry after a crash right after the create gets the same instance).
 * An instance that was replaced is never taken again, whatever state the provider shows.
 */
export async function ensureCloudInstance(
  deps: CloudDeps,
  run: RunContext,
  cellId: string,
  heartbeat: () => void,
): Promise<{ instanceId: string }> {
  return runStep(deps.db, run, 'cloud-instance', async (changes) => {
    const record = await loadProvisioning(deps.db, cellId);
    const request = instanceRequest(record);
    const replaced = new Set(record.replaced_instances.map((r) => r.instanceId));
    const candidate = await deps.cloud.findInstance(request);
    const found = candidate && !replaced.has(candidate.instanceId) ? candidate : undefined;
    heartbeat();
    const instance = found ?? (await deps.cloud.runInstance(request));
    heartbeat();
    const stored = await storeInstance(deps.db, record, deps.cloud.kind, instance);
    const outcome = found ? (stored === 'created' ? 'refreshed' : stored) : 'created';
    const before = record.instance?.instanceId;
    const item =
      before && before !== instance.instanceId && replaced.has(before)
        ? `instance ${instance.instanceId} (replaces ${before})`
        : `instance ${instance.instanceId}`;
    changes.push({ item, outcome });
    return { instanceId: instance.instanceId };
  });
}
