import type { CompanyRole, DbOrTrx } from '../db/database.ts';

/** Grants or changes an account's license in a company; true when it is new. */
export async function setLicense(db: DbOrTrx, input: { accountId: string; companyId: string; role: CompanyRole; admin: boolean }): Promise<boolean> {
  const existed = await db
    .selectFrom('licenses')
    .select('role')
    .where('account_id', '=', input.accountId)
    .where('company_id', '=', input.companyId)
    .executeTakeFirst();
  await db
    .insertInto('licenses')
    .values({ account_id: input.accountId, company_id: input.companyId, role: input.role, admin: input.admin })
    .onConflict((oc) => oc.columns(['account_id', 'company_id']).doUpdateSet({ role: input.role, admin: input.admin }))
    .execute();
  return !existed;
}
