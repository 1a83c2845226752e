import { licenseRole } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { seatsUsed } from './repository.ts';

/**
 * The company's members with their activation state (pending: invited, no password yet) and its
 * seats. A member an import added shows as pending, under the email and name the company gave,
 * until the person signs in: what the account was before (its username, name, state) is not the
 * company's to learn.
 */
export async function listMembers(db: DbOrTrx, companyId: string) {
  const rows = await db
    .selectFrom('licenses as l')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .leftJoin('member_invitations as i', (j) => j.onRef('i.account_id', '=', 'l.account_id').onRef('i.company_id', '=', 'l.company_id'))
    .select(['a.id', 'a.username', 'a.email', 'a.display_name', 'a.status', 'a.platform_staff', 'l.role', 'l.admin', 'l.external_id'])
    .select(['i.account_id as invited', 'i.name as invited_name'])
    .where('l.company_id', '=', companyId)
    .execute();
  const company = await db.selectFrom('companies').select('seat_limit').where('id', '=', companyId).executeTakeFirstOrThrow();
  const members = rows.map((r) => {
    const status = r.invited ? ('pending' as const) : r.status;
    return {
      accountId: r.id,
      username: r.invited ? r.email : r.username,
      email: r.email,
      name: r.invited ? r.invited_name : r.display_name,
      role: licenseRole(r, r.platform_staff),
      admin: r.admin,
      status,
      activated: status === 'active',
      externalId: r.external_id,
    };
  });
  // Ordered by the username shown, so the order tells nothing either.
  members.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
  return { members, seats: { limit: company.seat_limit, used: await seatsUsed(db, companyId) } };
}
