import { findCompany } from '../../companies/index.ts';
import type { DbOrTrx } from '../../db/index.ts';
import type { Clock } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import { authorize } from '../../policy/index.ts';
import type { Principal } from '../../principal.ts';
import { dataAccess } from '../data-access.ts';
import { findOntologyOfCompany } from '../repository.ts';

/**
 * The namespace's ontology for a caller the policy lets do `action` there: define types (agent
 * authors included: branches are their way), or decide a proposal (a developer's web login).
 */
export async function branchOntology(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  action: 'ontology.define' | 'ontology.decide-proposal' = 'ontology.define',
) {
  const company = await findCompany(deps.db, namespace);
  authorize(principal, action, { namespace: company.cell_id });
  const access = await dataAccess(deps, principal, { id: company.id, cellId: company.cell_id });
  const ontology = await findOntologyOfCompany(deps.db, company.id);
  if (!ontology) throw new DomainError('ontology_not_found', `${company.cell_id} has no ontology yet: its first definition is on main.`);
  return { ontology, access };
}
