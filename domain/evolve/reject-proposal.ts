import type { ProposalView } from '../../schemas/evolve.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { decide, openProposal } from './decide-proposal.ts';
import type { Ref } from './repository.ts';

/** Rejects an open proposal (a developer's web login, as applying); its feedback stays as it was. */
export async function rejectProposal(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, ref: Ref): Promise<ProposalView> {
  const proposal = await openProposal(deps.db, principal, ref);
  return decide(deps.db, deps.clock, principal, proposal, 'rejected');
}
