import { sql } from 'kysely';
import type { CompanyRole, DbOrTrx } from '../db/database.ts';
import { roleFromLicense } from '../auth/principal.ts';

export async function findAccountByLogin(db: DbOrTrx, login: string) {
  const normalized = login.trim().toLowerCase();
  return db
    .selectFrom('accounts')
    .selectAll()
    .where((eb) => eb.or([eb(sql`lower(username)`, '=', normalized), eb(sql`lower(email)`, '=', normalized)]))
    .executeTakeFirst();
}

export interface Membership {
  companyId: string;
  cellId: string;
  name: string;
  /** developer for a developer license, a company admin or platform staff. */
  role: CompanyRole;
  admin: boolean;
}

/** The companies an account can act for, with its role in each. */
export async function membershipsOf(db: DbOrTrx, accountId: string): Promise<Membership[]> {
  const rows = await db
    .selectFrom('licenses as l')
    .innerJoin('companies as c', 'c.id', 'l.company_id')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .select(['c.id', 'c.cell_id', 'c.name', 'l.role', 'l.admin', 'a.platform_staff'])
    .where('l.account_id', '=', accountId)
    .orderBy('c.cell_id')
    .execute();
  return rows.map((r) => ({
    companyId: r.id,
    cellId: r.cell_id,
    name: r.name,
    role: roleFromLicense(r, r.platform_staff),
    admin: r.admin,
  }));
}
