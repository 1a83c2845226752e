import { sql } from 'kysely';
import { EVOLVE_LIMITS, type EvolveChange, type ProposalView } from '../../schemas/evolve.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { findProposal, type ProposalRow, proposalView, type Ref } from './repository.ts';

/**
 * An open proposal of the namespace, locked, once the caller may decide it: a developer's human
 * web login only (spec "Branches": approving and rejecting a proposal accept only a human web
 * login), so neither a key nor the agent that wrote it can apply it.
 */
export async function openProposal(db: DbOrTrx, principal: Principal, ref: Ref): Promise<ProposalRow> {
  authorize(principal, 'evolve.decide', { namespace: ref.namespace });
  const proposal = await findProposal(db, ref, true);
  if (proposal.status !== 'open') {
    throw new DomainError('conflict', `Proposal ${ref.id} is already ${proposal.status}.`, { details: { status: proposal.status } });
  }
  return proposal;
}

/** Marks an open proposal decided (applied or rejected) by the caller. */
export async function decide(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  proposal: ProposalRow,
  status: 'applied' | 'rejected',
): Promise<ProposalView> {
  await db
    .updateTable('evolve_proposals')
    .set({ status, decided_by: principal.account.id, decided_at: clock.now() })
    .where('id', '=', proposal.id)
    .execute();
  return proposalView(await findProposal(db, { namespace: proposal.namespace, id: proposal.id }));
}

/**
 * Refuses a new improvement past the spec's limits (409 improvement_limit_reached): 40
 * company-wide per app, 20 personal per person and app. The app's row is locked first, so two
 * applies at once cannot both take the last place.
 */
export async function assertRoomFor(db: DbOrTrx, proposal: ProposalRow): Promise<void> {
  await db.selectFrom('apps').select('id').where('id', '=', proposal.app_id).forUpdate().execute();
  let count = db
    .selectFrom('evolve_improvements')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('app_id', '=', proposal.app_id)
    .where('scope', '=', proposal.scope);
  if (proposal.account_id !== null) count = count.where('account_id', '=', proposal.account_id);
  const { n } = await count.executeTakeFirstOrThrow();
  const limit = EVOLVE_LIMITS[proposal.scope];
  if (n >= limit) {
    throw new DomainError(
      'improvement_limit_reached',
      proposal.scope === 'company'
        ? `${proposal.namespace}/${proposal.slug} already has ${limit} company-wide improvements: delete one, or compile them into a version.`
        : `This person already has ${limit} personal improvements of ${proposal.namespace}/${proposal.slug}: delete one first.`,
      { details: { scope: proposal.scope, limit, count: n, ...(proposal.account_id ? { account: proposal.account_id } : {}) } },
    );
  }
}

/** The changes as stored (validated when written). */
export const changesOf = (proposal: ProposalRow) => proposal.changes as EvolveChange[];
