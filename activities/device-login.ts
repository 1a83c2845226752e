import type { Db } from '../domain/db/database.ts';
import { expireDeviceLogin } from '../domain/device-login/expire-device-login.ts';

export function createDeviceLoginActivities(deps: { db: Db }) {
  return {
    /** Idempotent: only a pending or approved login becomes expired. */
    expireDeviceLogin: (deviceLoginId: string) => expireDeviceLogin(deps.db, deviceLoginId),
  };
}
