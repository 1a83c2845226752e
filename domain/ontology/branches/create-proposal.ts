import type { DbOrTrx } from '../../db/index.ts';
import type { Clock } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import type { Principal } from '../../principal.ts';
import { newId } from '../../security/index.ts';
import { branchOntology } from './branch-access.ts';
import { findBranch, proposalWire, touchBranch } from './repository.ts';

/** A proposal to merge a branch into the main definition (anyone who may define, agent authors included). */
export async function createProposal(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  branchName: string,
  title: string,
) {
  const { ontology } = await branchOntology(deps, principal, namespace);
  const branch = await findBranch(deps.db, ontology.id, branchName, { lock: true });
  if (branch.status === 'MERGED')
    throw new DomainError('conflict', `Branch ${branchName} is merged already.`, { details: { branch: branchName } });
  const now = deps.clock.now();
  const row = await deps.db
    .insertInto('ontology_proposals')
    .values({ id: newId('prp'), branch_id: branch.id, title, status: 'OPEN', account_id: principal.account.id, created_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  await touchBranch(deps.db, branch.id, now);
  return proposalWire(row, branch.name);
}

export async function listProposals(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, namespace: string) {
  const { ontology } = await branchOntology(deps, principal, namespace);
  const rows = await deps.db
    .selectFrom('ontology_proposals as p')
    .innerJoin('ontology_branches as b', 'b.id', 'p.branch_id')
    .selectAll('p')
    .select('b.name as branch')
    .where('b.ontology_id', '=', ontology.id)
    .orderBy('p.created_at', 'desc')
    .orderBy('p.id')
    .execute();
  return rows.map((r) => proposalWire(r, r.branch));
}
