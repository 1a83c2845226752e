import { getAccount } from '../accounts/get-account.ts';
import type { CompanyRole, DbOrTrx } from '../db/database.ts';
import { findCompany, upsertLicense } from './repository.ts';

/** Grants or changes an account's license in a company; `created` tells whether it is new. */
export async function setLicense(db: DbOrTrx, input: { accountId: string; cellId: string; role: CompanyRole; admin: boolean }) {
  await getAccount(db, input.accountId);
  const company = await findCompany(db, input.cellId);
  const created = await upsertLicense(db, { accountId: input.accountId, companyId: company.id, role: input.role, admin: input.admin });
  return { ...(await getAccount(db, input.accountId)), created };
}
