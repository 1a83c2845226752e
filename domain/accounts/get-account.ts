import type { AccountView, UserView } from '../../schemas/identity.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { customAttributesOf } from './repository.ts';

/** The user fields (spec G, Admin) from the account and the licenses shown. */
export function userFields(
  a: { username: string; email: string; display_name: string | null },
  licenses: readonly { cell_id: string; role: string; created_at: Date }[],
): Pick<UserView, 'givenName' | 'familyName' | 'organization' | 'attributes'> {
  const [given, ...family] = (a.display_name ?? '').trim().split(/\s+/).filter(Boolean);
  const attributes: Record<string, string[]> = {
    'svc:username': [a.username],
    'svc:email': [a.email],
    'svc:organizations': licenses.map((l) => l.cell_id),
  };
  for (const l of licenses) attributes[`svc:role:${l.cell_id}`] = [l.role];
  return {
    givenName: given ?? null,
    familyName: family.length > 0 ? family.join(' ') : null,
    organization: [...licenses].sort((x, y) => x.created_at.getTime() - y.created_at.getTime())[0]?.cell_id ?? null,
    attributes,
  };
}

/**
 * An account (never its password hash or lockout counters): as operators see it, or, with
 * `companyIds`, showing only the licenses in those companies (a company admin's view).
 */
export async function getAccount(db: DbOrTrx, accountId: string, companyIds: readonly string[] | null = null): Promise<AccountView> {
  const a = await db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
  if (!a) throw new DomainError('user_not_found', `No account ${accountId}.`, { details: { id: accountId } });
  let q = db
    .selectFrom('licenses as l')
    .innerJoin('companies as c', 'c.id', 'l.company_id')
    .select(['c.cell_id', 'c.name', 'l.role', 'l.admin', 'l.created_at'])
    .where('l.account_id', '=', accountId);
  if (companyIds) q = q.where('l.company_id', 'in', companyIds.length > 0 ? companyIds : ['']);
  const licenses = await q.orderBy('c.cell_id').execute();
  return {
    id: a.id,
    username: a.username,
    email: a.email,
    status: a.status,
    ...userFields(a, licenses),
    emailVerified: a.email_verified,
    mustChangePassword: a.must_change_password,
    platformStaff: a.platform_staff,
    licenses: licenses.map((l) => ({ cellId: l.cell_id, name: l.name, role: l.role, admin: l.admin })),
    createdAt: a.created_at.toISOString(),
  };
}

/**
 * The attributes a company's security policies compare with: the derived `svc:` ones and that
 * company's custom attributes of the account (another company's never count).
 */
export async function policyAttributesOf(db: DbOrTrx, accountId: string, companyId: string): Promise<Record<string, string[]>> {
  const [account, custom] = await Promise.all([getAccount(db, accountId), customAttributesOf(db, accountId, companyId)]);
  return { ...custom, ...account.attributes };
}
