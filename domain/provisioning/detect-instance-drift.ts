import type { CloudProvider } from './cloud-provider.ts';
import type { DriftEntry } from './detect-drift.ts';
import { instanceRequest } from './ensure-cloud-instance.ts';
import { redactForbidden } from './forbidden-data.ts';
import type { ProvisioningRecord } from './repository.ts';

// Drift of the instance: the recorded one against what the provider says now. Reads only
// (describe and find by tag, never a create), each look bounded, so a slow or unreachable
// cloud makes the status say so instead of hanging it.

/** A status must answer while the cloud is slow: each look at the provider has this long. */
const LOOK_MS = 3000;

export interface InstanceDrift {
  /** False when the provider could not be asked (unreachable, another provider, timed out); `error` says why. */
  checked: boolean;
  /** The state the provider reports for the recorded instance; null when not known. */
  state: string | null;
  error: string | null;
  entries: DriftEntry[];
}

function bounded<T>(look: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the provider did not answer within ${LOOK_MS} ms`)), LOOK_MS);
  });
  return Promise.race([look, timeout]).finally(() => clearTimeout(timer));
}

/** The provider does not know the instance: our providers' "not found", EC2's InvalidInstanceID.NotFound, a local file gone. */
const notFound = (err: unknown) => err instanceof Error && /not found|NotFound|does not exist|ENOENT/.test(`${err.name} ${err.message}`);

/**
 * Compares the recorded instance with the provider: `missing` when the provider does not know it,
 * `changed` when its state or address differs from the record (`detail` says how), `unexpected`
 * when another instance carries the company's tag. Null without a recorded instance, and while a
 * replacement waits for its run (the recorded instance is already known to be dead).
 */
export async function detectInstanceDrift(cloud: CloudProvider, record: ProvisioningRecord): Promise<InstanceDrift | null> {
  const recorded = record.instance;
  if (!recorded || record.replaced_instances.some((r) => r.instanceId === recorded.instanceId)) return null;
  if (recorded.provider !== cloud.kind) {
    return {
      checked: false,
      state: null,
      error: `recorded on provider ${recorded.provider}; this service uses ${cloud.kind}`,
      entries: [],
    };
  }
  const request = instanceRequest(record);
  const entries: DriftEntry[] = [];
  const add = (kind: DriftEntry['kind'], detail: string, name = recorded.instanceId) =>
    entries.push({ kind, target: 'instance', name, path: '', detail });
  const failed = (err: unknown, state: string | null): InstanceDrift => ({
    checked: false,
    state,
    error: redactForbidden(err instanceof Error ? err.message : String(err)),
    entries,
  });
  let state: string | null = null;
  try {
    const actual = await bounded(cloud.describeInstance(request, recorded.instanceId));
    state = actual.state;
    if (actual.state !== recorded.state) add('changed', `recorded ${recorded.state}, the provider says ${actual.state}`);
    if (actual.address !== recorded.address) add('changed', `recorded address ${recorded.address}, the provider says ${actual.address}`);
  } catch (err) {
    if (!notFound(err)) return failed(err, null);
    add('missing', 'the provider does not know this instance');
  }
  try {
    const tagged = await bounded(cloud.findInstance(request));
    if (tagged && tagged.instanceId !== recorded.instanceId)
      add('unexpected', `carries the company's tag; state ${tagged.state}`, tagged.instanceId);
  } catch (err) {
    return failed(err, state);
  }
  return { checked: true, state, error: null, entries };
}
