import type { CompanyRole, DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';

/** By cell id (`cell-…`) or by id (`org_…`). */
export async function findCompany(db: DbOrTrx, ref: string) {
  const company = await db
    .selectFrom('companies')
    .selectAll()
    .where(ref.startsWith('cell-') ? 'cell_id' : 'id', '=', ref)
    .executeTakeFirst();
  if (!company) throw new DomainError('organization_not_found', `No company ${ref}.`, { details: { company: ref } });
  return company;
}

/** A developer of a company: developer license, company admin, or platform staff. */
export function licenseRole(license: { role: CompanyRole; admin: boolean }, platformStaff: boolean): CompanyRole {
  return license.role === 'developer' || license.admin || platformStaff ? 'developer' : 'member';
}

/** A key never acts above the role it was issued with, nor above the account's role today. */
export function keyRole(issued: CompanyRole, today: CompanyRole): CompanyRole {
  return issued === 'developer' && today === 'developer' ? 'developer' : 'member';
}

export interface License {
  companyId: string;
  cellId: string;
  name: string;
  /** developer for a developer license, a company admin or platform staff. */
  role: CompanyRole;
  admin: boolean;
}

const licenseRows = (db: DbOrTrx) =>
  db
    .selectFrom('licenses as l')
    .innerJoin('companies as c', 'c.id', 'l.company_id')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .select(['c.id', 'c.cell_id', 'c.name', 'l.role', 'l.admin', 'a.platform_staff', 'a.status', 'a.username']);

const toLicense = (r: {
  id: string;
  cell_id: string;
  name: string;
  role: CompanyRole;
  admin: boolean;
  platform_staff: boolean;
}): License => ({
  companyId: r.id,
  cellId: r.cell_id,
  name: r.name,
  role: licenseRole(r, r.platform_staff),
  admin: r.admin,
});

/** The companies an account can act for, with its role in each. */
export async function licensesOf(db: DbOrTrx, accountId: string): Promise<License[]> {
  const rows = await licenseRows(db).where('l.account_id', '=', accountId).orderBy('c.cell_id').execute();
  return rows.map(toLicense);
}

/** One account's license in one company today, with the account's state; undefined when there is none. */
export async function findLicense(db: DbOrTrx, accountId: string, companyId: string) {
  const row = await licenseRows(db).where('l.account_id', '=', accountId).where('l.company_id', '=', companyId).executeTakeFirst();
  return row && { ...toLicense(row), accountActive: row.status === 'active', username: row.username };
}

export async function companyMembers(db: DbOrTrx, companyId: string) {
  return db
    .selectFrom('licenses as l')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .select(['a.id', 'a.username', 'l.role', 'l.admin'])
    .where('l.company_id', '=', companyId)
    .orderBy('a.username')
    .execute();
}

/** Grants or changes an account's license in a company; true when it is new. */
export async function upsertLicense(
  db: DbOrTrx,
  input: { accountId: string; companyId: string; role: CompanyRole; admin: boolean },
): Promise<boolean> {
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

/** True when a license was removed. */
export async function deleteLicense(db: DbOrTrx, accountId: string, companyId: string): Promise<boolean> {
  const result = await db.deleteFrom('licenses').where('account_id', '=', accountId).where('company_id', '=', companyId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
