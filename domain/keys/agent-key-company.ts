import { findCompany } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

/** The company whose agent keys the caller manages: only its developers (company.manage; a key acts for its own company only). */
export async function agentKeyCompany(db: DbOrTrx, principal: Principal, namespace: string) {
  const company = await findCompany(db, namespace);
  authorize(principal, 'company.manage', { namespace: company.cell_id });
  return company;
}
