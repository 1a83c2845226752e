import type { CompanyView } from '../../schemas/identity.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { can } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { companyMembers, findCompany } from './repository.ts';

/** One company and its members, as operators see it; `ref` is the cellId or the id. */
export async function getCompany(db: DbOrTrx, ref: string): Promise<CompanyView> {
  const c = await findCompany(db, ref);
  const members = await companyMembers(db, c.id);
  return {
    id: c.id,
    cellId: c.cell_id,
    name: c.name,
    createdAt: c.created_at.toISOString(),
    members: members.map((m) => ({ accountId: m.id, username: m.username, role: m.role, admin: m.admin })),
  };
}

/**
 * A company as the caller may read it (spec G, `GET /api/v1/admin/organizations/{rid}`): its own
 * admins and developers, operators every company; another company does not exist for the caller.
 */
export async function readCompany(db: DbOrTrx, principal: Principal, ref: string): Promise<CompanyView> {
  const view = await getCompany(db, ref);
  if (!can(principal, 'people.manage', { namespace: view.cellId })) {
    throw new DomainError('organization_not_found', `No company ${ref}.`, { details: { company: ref } });
  }
  return view;
}
