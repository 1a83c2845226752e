import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';
import { type DeviceLoginClosedReason, type DeviceLoginExpiryInput, deviceLoginClosed } from '../contract.ts';

const { expireDeviceLogin } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Owns a device login's lifetime: waits for it to be denied or redeemed, or
 * for its expiry; at expiry marks it expired (a later poll or decision then
 * gets device_code_expired even if nobody asks the database the time).
 */
export async function deviceLoginExpiry(input: DeviceLoginExpiryInput): Promise<DeviceLoginClosedReason | 'expired'> {
  let closedBy: DeviceLoginClosedReason | undefined;
  setHandler(deviceLoginClosed, (reason) => {
    closedBy = reason;
  });
  const remainingMs = Math.max(0, Date.parse(input.expiresAt) - Date.now());
  if (await condition(() => closedBy !== undefined, remainingMs)) return closedBy!;
  await expireDeviceLogin(input.deviceLoginId);
  return 'expired';
}
