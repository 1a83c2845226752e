import { createHash } from 'node:crypto';
import type { InstanceRecord } from '../db/index.ts';

// The port to a cloud: the domain decides find-or-create and waits; an adapter (infra/cloud/)
// talks to EC2 or simulates an instance on this machine. Implementations return metadata only.

export interface InstanceRequest {
  cellId: string;
  companyKey: string;
  profile: string;
  accountId: string;
  region: string;
  instanceName: string;
  /**
   * Idempotency token derived from the cell and the step: the provider creates at most one
   * instance per token, so a retry after a crash between create and report finds the first one.
   */
  clientToken: string;
}

export type InstanceMetadata = Omit<InstanceRecord, 'provider'>;

export interface CloudProvider {
  readonly kind: InstanceRecord['provider'];
  /** How long to wait between looks while an instance starts. */
  readonly pollIntervalMs: number;
  /** The company's instance, found by its tag (`svc:cell` = cellId); terminated ones do not count. */
  findInstance(request: InstanceRequest): Promise<InstanceMetadata | undefined>;
  /** Creates the instance, tagged, with `request.clientToken`. */
  runInstance(request: InstanceRequest): Promise<InstanceMetadata>;
  describeInstance(request: InstanceRequest, instanceId: string): Promise<InstanceMetadata>;
}

/** The tag that finds a company's instance again. */
export const CELL_TAG = 'svc:cell';

/**
 * At most 64 ASCII characters (EC2's limit); the same for every attempt and run of this cell and
 * generation. Generation 0 is the first instance's token; each replacement counts up, so the
 * provider makes a new instance instead of answering with the dead one.
 */
export function instanceClientToken(cellId: string, generation = 0): string {
  const seed = generation === 0 ? `${cellId}:cloud-instance` : `${cellId}:cloud-instance:${generation}`;
  return `svc-${createHash('sha256').update(seed).digest('hex').slice(0, 40)}`;
}

/** States from which an instance never comes back: it is replaced (`{"replace": true}` on cloud-instance). */
export const DEAD_STATES: ReadonlySet<string> = new Set(['shutting-down', 'terminated']);
/** States in which it waits for someone to start it; svc never starts a stopped instance. */
export const STOPPED_STATES: ReadonlySet<string> = new Set(['stopping', 'stopped']);

/** What an operator does about an instance in `state`; null when nothing is needed. */
export function instanceRemedy(cellId: string, state: string): string | null {
  const path = `/api/v1/control-plane/companies/${cellId}/cloud-instance`;
  if (DEAD_STATES.has(state)) {
    return `The instance will not come back: POST ${path} with {"replace": true} creates a new one (the old id stays on record).`;
  }
  if (STOPPED_STATES.has(state)) return `Start the instance in the cloud console (svc never starts a stopped instance), then POST ${path}.`;
  return null;
}
