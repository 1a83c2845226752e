import { getAccount } from '../accounts/get-account.ts';
import type { DbOrTrx } from '../db/database.ts';
import { deleteLicense, findCompany } from './repository.ts';

/** Removes an account's license in a company (idempotent); keys it holds for that company stop working at once. */
export async function removeLicense(db: DbOrTrx, input: { accountId: string; cellId: string }) {
  await getAccount(db, input.accountId);
  const company = await findCompany(db, input.cellId);
  const removed = await deleteLicense(db, input.accountId, company.id);
  return { ...(await getAccount(db, input.accountId)), removed };
}
