import { findCompany } from '../../companies/index.ts';
import type { DbOrTrx } from '../../db/index.ts';
import type { Clock } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import { authorize } from '../../policy/index.ts';
import type { Principal } from '../../principal.ts';
import { dataAccess } from '../data-access.ts';
import { findOntologyOfCompany } from '../repository.ts';

/** The namespace's ontology for a caller who may define types there (agent authors included: branches are their way). */
export async function branchOntology(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, namespace: string) {
  const company = await findCompany(deps.db, namespace);
  authorize(principal, 'ontology.define', { namespace: company.cell_id });
  const access = await dataAccess(deps, principal, { id: company.id, cellId: company.cell_id });
  const ontology = await findOntologyOfCompany(deps.db, company.id);
  if (!ontology) throw new DomainError('ontology_not_found', `${company.cell_id} has no ontology yet: its first definition is on main.`);
  return { ontology, access };
}

/** Approving, rejecting and merging a proposal accept only a human web login (spec "Branches"). */
export function assertHumanWebLogin(principal: Principal): void {
  if (principal.kind !== 'session') {
    throw new DomainError('forbidden', 'Approving, rejecting and merging a proposal accept only a human web login: sign in on the web.', {
      details: { required: 'session' },
    });
  }
}
