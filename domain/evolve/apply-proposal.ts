import type { ProposalView } from '../../schemas/evolve.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { assertRoomFor, changesOf, decide, openProposal } from './decide-proposal.ts';
import { assertDeclared } from './declared.ts';
import { governingVersion } from './evolve-app.ts';
import type { Ref } from './repository.ts';

/**
 * Applies an open proposal: it becomes an improvement (company-wide, or the one person's), within
 * the limits, checked again against the app's declared tokens and slots; the feedback it answered
 * becomes `done` (spec "Feedback status": accepted improvements mark their feedback handled). Every
 * process's next open of the app shows it (the overlay cache is emptied by the change).
 */
export async function applyProposal(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, ref: Ref): Promise<ProposalView> {
  const { db, clock } = deps;
  const proposal = await openProposal(db, principal, ref);
  const app = { id: proposal.app_id, namespace: proposal.namespace, slug: proposal.slug };
  assertDeclared((await governingVersion(db, app)).manifest, changesOf(proposal));
  await assertRoomFor(db, proposal);
  await db
    .insertInto('evolve_improvements')
    .values({
      id: newId('evi'),
      app_id: proposal.app_id,
      proposal_id: proposal.id,
      scope: proposal.scope,
      account_id: proposal.account_id,
      changes: JSON.stringify(proposal.changes),
      created_by: principal.account.id,
    })
    .execute();
  const evidence = proposal.evidence as string[];
  if (evidence.length) {
    await db
      .updateTable('app_log_events')
      .set({ status: 'done', status_by: principal.account.id, status_at: clock.now() })
      .where('app_id', '=', proposal.app_id)
      .where('id', 'in', evidence)
      .where('kind', '=', 'feedback')
      .where('status', 'in', ['open', 'planned'])
      .execute();
  }
  return decide(db, clock, principal, proposal, 'applied');
}
