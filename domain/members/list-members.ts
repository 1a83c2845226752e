import { licenseRole } from '../companies/repository.ts';
import type { DbOrTrx } from '../db/database.ts';
import { seatsUsed } from './repository.ts';

/** The company's members with their activation state (pending: invited, no password yet) and its seats. */
export async function listMembers(db: DbOrTrx, companyId: string) {
  const rows = await db
    .selectFrom('licenses as l')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .select(['a.id', 'a.username', 'a.email', 'a.display_name', 'a.status', 'a.platform_staff', 'l.role', 'l.admin', 'l.external_id'])
    .where('l.company_id', '=', companyId)
    .orderBy('a.username')
    .execute();
  const company = await db.selectFrom('companies').select('seat_limit').where('id', '=', companyId).executeTakeFirstOrThrow();
  return {
    members: rows.map((r) => ({
      accountId: r.id,
      username: r.username,
      email: r.email,
      name: r.display_name,
      role: licenseRole(r, r.platform_staff),
      admin: r.admin,
      status: r.status,
      activated: r.status === 'active',
      externalId: r.external_id,
    })),
    seats: { limit: company.seat_limit, used: await seatsUsed(db, companyId) },
  };
}
