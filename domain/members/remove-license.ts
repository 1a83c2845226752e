import { getAccount } from '../accounts/index.ts';
import { deleteLicense, findCompany } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { revokeKeysOf } from '../keys/index.ts';
import { withdrawAccountRoles } from '../markings/index.ts';
import { recordSecurityEvent } from '../security-events/index.ts';

/**
 * Removes an account's license in a company (idempotent). Its keys for that company are
 * revoked for good: granting the license again later does not bring them back. Its roles on the
 * company's markings go first (refused while it is a marking's last ADMINISTER: last_admin_protected).
 */
export async function removeLicense(db: DbOrTrx, input: { accountId: string; cellId: string; actorId: string; ip: string }) {
  await getAccount(db, input.accountId);
  const company = await findCompany(db, input.cellId);
  await withdrawAccountRoles(db, { accountId: input.accountId, companyId: company.id, actorId: input.actorId, ip: input.ip });
  const removed = await deleteLicense(db, input.accountId, company.id);
  const by = { accountId: input.accountId, actorId: input.actorId, ip: input.ip };
  if (removed) await recordSecurityEvent(db, { kind: 'license_removed', ...by, details: { cellId: input.cellId } });
  await revokeKeysOf(db, { ...by, companyId: company.id, reason: 'license_removed' });
  return { ...(await getAccount(db, input.accountId)), removed };
}
