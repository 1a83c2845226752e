import type { ProposalView } from '../../schemas/evolve.ts';
import type { DbOrTrx } from '../db/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { findProposal, proposalView, type Ref } from './repository.ts';

/** One proposal of the namespace (developers of the namespace). */
export async function getProposal(db: DbOrTrx, principal: Principal, ref: Ref): Promise<ProposalView> {
  authorize(principal, 'company.manage', { namespace: ref.namespace });
  return proposalView(await findProposal(db, ref));
}
