import type { Db } from '../domain/db/index.ts';
import { expireDeviceLogin } from '../domain/device-login/index.ts';

export function createDeviceLoginActivities(deps: { db: Db }) {
  return {
    /** Idempotent: only a pending or approved login becomes expired. */
    expireDeviceLogin: (deviceLoginId: string) => expireDeviceLogin(deps.db, deviceLoginId),
  };
}
