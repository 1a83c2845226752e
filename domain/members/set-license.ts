import { getAccount } from '../accounts/index.ts';
import { findCompany, findLicense, upsertLicense } from '../companies/index.ts';
import type { CompanyRole, DbOrTrx } from '../db/index.ts';
import { revokeTicketsOf } from '../keys/index.ts';

/**
 * Grants or changes an account's license in a company; `created` tells whether it is new. A changed
 * role or admin flag ends the account's tickets and app tokens for the company's apps: a ticket
 * carries the app role judged when it was issued, so a downgraded developer must open the app again.
 */
export async function setLicense(db: DbOrTrx, input: { accountId: string; cellId: string; role: CompanyRole; admin: boolean }) {
  await getAccount(db, input.accountId);
  const company = await findCompany(db, input.cellId);
  const before = await findLicense(db, input.accountId, company.id);
  const created = await upsertLicense(db, { accountId: input.accountId, companyId: company.id, role: input.role, admin: input.admin });
  if (before && (before.role !== input.role || before.admin !== input.admin)) await revokeTicketsOf(db, input.accountId, company.id);
  return { ...(await getAccount(db, input.accountId)), created };
}
