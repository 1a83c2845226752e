import type { AccountView } from '../../schemas/identity.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';

/** An account as operators see it (never its password hash or lockout counters). */
export async function getAccount(db: DbOrTrx, accountId: string): Promise<AccountView> {
  const a = await db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
  if (!a) throw new DomainError('user_not_found', `No account ${accountId}.`, { details: { id: accountId } });
  const licenses = await db
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
    licenses: licenses.map((l) => ({ cellId: l.cell_id, name: l.name, role: l.role, admin: l.admin })),
    createdAt: a.created_at.toISOString(),
  };
}
