import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/**
 * The companies whose people the caller reads (policy people.manage): the one named, if the
 * caller manages it; otherwise a company admin's or developer's own company (a key acts for one),
 * and for operators every company (null).
 */
export async function peopleScope(db: DbOrTrx, principal: Principal, organization?: string): Promise<string[] | null> {
  if (organization === undefined) {
    if (principal.account.platformStaff) return null;
    const own = principal.kind === 'key' ? principal.company.cellId : undefined;
    if (!own) throw new DomainError('forbidden', 'Only company admins and developers (by key) and operators read a company’s people.');
    organization = own;
  }
  const company = await db.selectFrom('companies').select(['id', 'cell_id']).where('cell_id', '=', organization).executeTakeFirst();
  if (!company) throw new DomainError('organization_not_found', `No company ${organization}.`, { details: { organization } });
  authorize(principal, 'people.manage', { namespace: company.cell_id });
  return [company.id];
}
