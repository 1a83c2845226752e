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

/** At most 64 ASCII characters (EC2's limit); the same for every attempt and run of this cell. */
export function instanceClientToken(cellId: string): string {
  return `svc-${createHash('sha256').update(`${cellId}:cloud-instance`).digest('hex').slice(0, 40)}`;
}
