import type { DbOrTrx } from '../db/index.ts';
import { markExpired } from './repository.ts';

/** The expiry workflow's timer fired: only a pending or approved login becomes expired (idempotent). */
export async function expireDeviceLogin(db: DbOrTrx, deviceLoginId: string): Promise<void> {
  await markExpired(db, deviceLoginId);
}
