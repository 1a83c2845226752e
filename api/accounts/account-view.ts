import type { z } from 'zod';
import type { DbOrTrx } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import type { AccountView } from './schemas.ts';

/** An account as operators see it (never its password hash or lockout counters). */
export async function accountView(db: DbOrTrx, accountId: string): Promise<z.input<typeof AccountView>> {
  const a = await db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
  if (!a) throw new ApiError('user_not_found', 404, { id: accountId });
  const orgs = await db
    .selectFrom('licenses as l')
    .innerJoin('companies as c', 'c.id', 'l.company_id')
    .select(['c.cell_id', 'c.name', 'l.role', 'l.admin'])
    .where('l.account_id', '=', accountId)
    .orderBy('c.cell_id')
    .execute();
  return {
    id: a.id,
    username: a.username,
    email: a.email,
    status: a.status,
    emailVerified: a.email_verified,
    mustChangePassword: a.must_change_password,
    platformStaff: a.platform_staff,
    organizations: orgs.map((o) => ({ cellId: o.cell_id, name: o.name, role: o.role, admin: o.admin })),
    createdAt: a.created_at.toISOString(),
  };
}
