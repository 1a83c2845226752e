import type { Selectable } from 'kysely';
import type { DbOrTrx, DeviceLoginsTable } from '../db/index.ts';
import { sha256 } from '../security/index.ts';

export type DeviceLogin = Selectable<DeviceLoginsTable>;

/** The state a person or client sees: time passing turns pending or approved into expired. */
export function effectiveStatus(login: DeviceLogin, now = new Date()): DeviceLogin['status'] {
  if ((login.status === 'pending' || login.status === 'approved') && login.expires_at <= now) return 'expired';
  return login.status;
}

/** The newest request with this user code (codes are unique only among pending ones). */
export async function findByUserCode(db: DbOrTrx, userCode: string): Promise<DeviceLogin | undefined> {
  return db
    .selectFrom('device_logins')
    .selectAll()
    .where('user_code', '=', userCode)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function findPendingByUserCode(db: DbOrTrx, userCode: string, opts: { unexpiredForUpdate?: boolean } = {}) {
  let q = db.selectFrom('device_logins').selectAll().where('user_code', '=', userCode).where('status', '=', 'pending');
  if (opts.unexpiredForUpdate) q = q.where('expires_at', '>', new Date()).forUpdate();
  return q.executeTakeFirst();
}

export async function findByDeviceCode(db: DbOrTrx, deviceCode: string): Promise<DeviceLogin | undefined> {
  return db.selectFrom('device_logins').selectAll().where('device_code_hash', '=', sha256(deviceCode)).executeTakeFirst();
}

/** Marks an expired request as such (idempotent); the expiry workflow does the same on its timer. */
export async function markExpired(db: DbOrTrx, id: string): Promise<void> {
  await db
    .updateTable('device_logins')
    .set({ status: 'expired' })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'approved'])
    .execute();
}

/**
 * An approval whose grounds are gone (license removed, account disabled) ends as denied, for
 * good: granting the license again later must not revive it. Only an approved login changes.
 */
export async function markApprovalWithdrawn(db: DbOrTrx, id: string): Promise<void> {
  await db.updateTable('device_logins').set({ status: 'denied' }).where('id', '=', id).where('status', '=', 'approved').execute();
}
