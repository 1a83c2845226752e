import { markExpired } from '../api/device-login/find-device-login.ts';
import type { Db } from '../api/db/database.ts';

export function createDeviceLoginActivities(deps: { db: Db }) {
  return {
    /** Idempotent: only a pending or approved login becomes expired. */
    async expireDeviceLogin(deviceLoginId: string): Promise<void> {
      await markExpired(deps.db, deviceLoginId);
    },
  };
}
