import { defineSignal } from '@temporalio/workflow';

// The one module both sides share: task queue, workflow ids, signals.
// Workflow code imports it, so it must stay free of Node and server modules.

export const TASK_QUEUE = 'svc-main';

/** Business-keyed ids: one workflow per device login. */
export const deviceLoginWorkflowId = (deviceLoginId: string) => `device-login:${deviceLoginId}`;

export type DeviceLoginClosedReason = 'denied' | 'redeemed';
/** The device login ended before its expiry; nothing is left for the timer to do. */
export const deviceLoginClosed = defineSignal<[DeviceLoginClosedReason]>('deviceLoginClosed');

export interface DeviceLoginExpiryInput {
  deviceLoginId: string;
  /** ISO time after which an undecided or unredeemed login is expired. */
  expiresAt: string;
}
