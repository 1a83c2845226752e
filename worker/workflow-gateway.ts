import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Logger } from 'pino';
import { type DeviceLoginClosedReason, deviceLoginClosed, deviceLoginWorkflowId, TASK_QUEUE } from './shared.ts';
import type { deviceLoginExpiry } from '../workflows/index.ts';

/**
 * What the API asks of Temporal; called from `afterCommit`, so only for
 * committed changes. Device logins are enforced by the database (expiry time,
 * status), so their workflow is tidy-up: a Temporal outage is logged and must
 * not fail the request (a redeemed key would be lost with the response).
 */
export interface WorkflowGateway {
  deviceLoginStarted(deviceLoginId: string, expiresAt: Date): Promise<void>;
  deviceLoginClosed(deviceLoginId: string, reason: DeviceLoginClosedReason): Promise<void>;
}

/** How long a request may wait for Temporal after its commit (the SDK would otherwise retry for ~20 s). */
export const WORKFLOW_CALL_DEADLINE_MS = 2_000;

export function temporalWorkflowGateway(client: Client, logger: Logger): WorkflowGateway {
  const bestEffort = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await client.withDeadline(Date.now() + WORKFLOW_CALL_DEADLINE_MS, fn);
    } catch (err) {
      // Already finished (or lost with an in-memory dev server) is expected; anything else is worth a warning.
      if (!(err instanceof WorkflowNotFoundError)) logger.warn({ err, what }, 'workflow call failed; the database stays authoritative');
    }
  };
  return {
    deviceLoginStarted: (deviceLoginId, expiresAt) =>
      bestEffort('start deviceLoginExpiry', () =>
        client.workflow.start<typeof deviceLoginExpiry>('deviceLoginExpiry', {
          taskQueue: TASK_QUEUE,
          workflowId: deviceLoginWorkflowId(deviceLoginId),
          args: [{ deviceLoginId, expiresAt: expiresAt.toISOString() }],
        }),
      ),
    deviceLoginClosed: (deviceLoginId, reason) =>
      bestEffort('signal deviceLoginClosed', () => client.workflow.getHandle(deviceLoginWorkflowId(deviceLoginId)).signal(deviceLoginClosed, reason)),
  };
}
