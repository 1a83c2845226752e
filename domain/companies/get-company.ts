import type { CompanyView } from '../../schemas/identity.ts';
import type { DbOrTrx } from '../db/index.ts';
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
