import { findCompany } from '../companies/repository.ts';
import type { DbOrTrx } from '../db/database.ts';
import { DomainError } from '../errors.ts';
import { visitorOf } from '../hosting/visitor.ts';
import type { Principal } from '../principal.ts';

/** The company whose agent keys the caller manages: only its developers (and platform staff) may. */
export async function agentKeyCompany(db: DbOrTrx, principal: Principal, namespace: string) {
  const company = await findCompany(db, namespace);
  // A key acts for its own company only, whoever holds it (as in data access).
  const ownKey = principal.kind !== 'key' || principal.company.id === company.id;
  const visitor = await visitorOf(db, principal);
  const developer = visitor.licenses.some((l) => l.companyId === company.id && l.role === 'developer');
  if (!ownKey || (!developer && !visitor.platformStaff)) {
    throw new DomainError('forbidden', `Only developers of ${company.cell_id} may manage its agent keys.`, {
      details: { namespace: company.cell_id, required: 'developer' },
    });
  }
  return company;
}
