import type { DbOrTrx, ProposalStatus } from '../../db/index.ts';
import type { Clock } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import type { Principal } from '../../principal.ts';
import { defineActionTypes } from '../define-action-types.ts';
import { defineObjectTypes } from '../define-object-types.ts';
import { branchOntology } from './branch-access.ts';
import { branchWrites, proposalWire, touchBranch } from './repository.ts';

type Deps = { db: DbOrTrx; clock: Clock };
export type Decision = 'approve' | 'reject' | 'merge';

/** Which states each decision leaves from. */
const FROM: Record<Decision, readonly ProposalStatus[]> = { approve: ['OPEN'], reject: ['OPEN', 'APPROVED'], merge: ['APPROVED'] };
const TO: Record<Decision, ProposalStatus> = { approve: 'APPROVED', reject: 'REJECTED', merge: 'MERGED' };

/**
 * Approve, reject or merge a proposal: only a developer's human web login (spec "Branches").
 * OPEN → APPROVED → MERGED, or → REJECTED. A merge applies the branch's writes in order to the
 * main definition, each through the same use case as a direct definition (so every check and
 * version applies), all in this transaction: one refused write and nothing is merged.
 */
export async function decideProposal(deps: Deps, principal: Principal, namespace: string, proposalId: string, decision: Decision) {
  const { ontology } = await branchOntology(deps, principal, namespace, 'ontology.decide-proposal');
  const proposal = await deps.db
    .selectFrom('ontology_proposals as p')
    .innerJoin('ontology_branches as b', 'b.id', 'p.branch_id')
    .selectAll('p')
    .select(['b.name as branch'])
    .where('p.id', '=', proposalId)
    .where('b.ontology_id', '=', ontology.id)
    .forUpdate()
    .executeTakeFirst();
  if (!proposal) throw new DomainError('proposal_not_found', `No proposal ${proposalId}.`, { details: { proposalId } });
  if (!FROM[decision].includes(proposal.status)) {
    throw new DomainError(
      'conflict',
      `A proposal that is ${proposal.status} cannot be ${decision === 'merge' ? 'merged' : `${decision}d`}.`,
      {
        details: { status: proposal.status, allowedFrom: FROM[decision] },
      },
    );
  }
  const now = deps.clock.now();
  let merged: unknown[] | undefined;
  if (decision === 'merge') {
    merged = [];
    for (const write of await branchWrites(deps.db, proposal.branch_id)) {
      merged.push(
        write.kind === 'objectTypes'
          ? await defineObjectTypes(deps, principal, namespace, write.request)
          : await defineActionTypes(deps, principal, namespace, write.request),
      );
    }
    // A merged branch is kept 7 days, then deleted with its writes (sweep-branches.ts).
    await deps.db
      .updateTable('ontology_branches')
      .set({ status: 'MERGED', inactive_since: now })
      .where('id', '=', proposal.branch_id)
      .execute();
  } else {
    await touchBranch(deps.db, proposal.branch_id, now);
  }
  const row = await deps.db
    .updateTable('ontology_proposals')
    .set({ status: TO[decision], decided_by: principal.account.id, decided_at: now })
    .where('id', '=', proposalId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...proposalWire(row, proposal.branch), ...(merged ? { merged } : {}) };
}
