import { findCompany } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { revokeKeysOf } from '../keys/index.ts';
import { getAccount } from './get-account.ts';

/** An operator revokes an account's keys for good (all, or those for one company); idempotent. */
export async function revokeAccountKeys(
  db: DbOrTrx,
  input: { accountId: string; cellId?: string | undefined; actorId: string; ip: string },
) {
  await getAccount(db, input.accountId);
  const company = input.cellId === undefined ? undefined : await findCompany(db, input.cellId);
  return revokeKeysOf(db, { accountId: input.accountId, companyId: company?.id, reason: 'operator', actorId: input.actorId, ip: input.ip });
}
