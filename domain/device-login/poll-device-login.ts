import type { IssuedKey } from '../../schemas/identity.ts';
import { findLicense, keyRole } from '../companies/index.ts';
import type { Db, DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { issueKey } from '../keys/index.ts';
import { enqueue } from '../outbox/index.ts';
import { type DeviceLogin, effectiveStatus, findByDeviceCode, markApprovalWithdrawn, markExpired } from './repository.ts';

export const expired = (why: string) => new DomainError('device_code_expired', why);
const withdrawn = () => new DomainError('access_denied', 'The approving account can no longer act for that company.');

/**
 * A3, first step, on the pool: the poll clock and an expiry must stick although
 * the answer is an error (pending, denied, too fast, expired). Returns the approved login.
 */
export async function checkDevicePoll(db: Db, deviceCode: string): Promise<DeviceLogin> {
  const login = await findByDeviceCode(db, deviceCode);
  if (!login) throw expired('Unknown or expired device code: start the login again.');
  const now = new Date();
  const status = effectiveStatus(login, now);
  if (status === 'expired') {
    await markExpired(db, login.id);
    throw expired('The device code has expired: start the login again.');
  }
  if (status === 'consumed') throw expired('This device code was already used.');

  const claimed = await db
    .updateTable('device_logins')
    .set({ last_polled_at: now })
    .where('id', '=', login.id)
    .where((eb) =>
      eb.or([eb('last_polled_at', 'is', null), eb('last_polled_at', '<=', new Date(now.getTime() - login.interval_seconds * 1000))]),
    )
    .executeTakeFirst();
  if (claimed.numUpdatedRows === 0n) {
    throw new DomainError('rate_limited', `Poll at most every ${login.interval_seconds} seconds.`, {
      details: { interval: login.interval_seconds },
      retryAfterSeconds: login.interval_seconds,
    });
  }
  if (status === 'pending') {
    throw new DomainError('authorization_pending', 'Waiting for the person to approve in the browser.', {
      details: { interval: login.interval_seconds },
    });
  }
  // A withdrawn approval keeps its company; a person's denial never had one.
  if (status === 'denied') throw login.company_id ? withdrawn() : new DomainError('access_denied', 'The login was denied in the browser.');
  // Approved, but the license may have been removed or the account disabled since: then the
  // approval is withdrawn on the pool, so it sticks (the answer is an error) and cannot revive.
  const license = await findLicense(db, login.account_id!, login.company_id!);
  if (!license?.accountActive) {
    await markApprovalWithdrawn(db, login.id);
    throw withdrawn();
  }
  return login;
}

/** A3, second step, in the transaction: approved -> consumed exactly once, even for concurrent polls. */
export async function redeemDeviceLogin(db: DbOrTrx, login: DeviceLogin, ip: string) {
  const won = await db
    .updateTable('device_logins')
    .set({ status: 'consumed' })
    .where('id', '=', login.id)
    .where('status', '=', 'approved')
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  if (won.numUpdatedRows === 0n) throw expired('This device code was already used or has expired.');
  // The role is re-read from today's license, in the transaction: a key never carries a role the
  // account lost between approval and issuance. A license removed since the first step refuses
  // here (rolled back); the next poll's first step withdraws the approval for good.
  const license = await findLicense(db, login.account_id!, login.company_id!);
  if (!license?.accountActive) throw withdrawn();
  const role = keyRole(login.role!, license.role);
  const key = await issueKey(db, {
    accountId: login.account_id!,
    companyId: login.company_id!,
    role,
    clientName: login.client_name,
    issuedBy: 'device',
    ip,
  });
  await db.updateTable('device_logins').set({ key_id: key.id }).where('id', '=', login.id).execute();
  await enqueue(db, { topic: 'device-login.closed', key: login.id, payload: { reason: 'redeemed' } });
  const issued: IssuedKey = {
    key: key.plaintext,
    keyId: key.id,
    prefix: key.displayPrefix,
    role,
    clientName: login.client_name,
    account: { id: login.account_id!, username: license.username },
    company: { cellId: license.cellId, name: license.name },
  };
  return { issued, plan: { wouldIssue: { clientName: login.client_name, role } } };
}
