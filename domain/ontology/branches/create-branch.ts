import type { DbOrTrx } from '../../db/index.ts';
import type { Clock } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import type { Principal } from '../../principal.ts';
import { newId } from '../../security/index.ts';
import { branchOntology } from './branch-access.ts';
import { getBranch } from './list-branches.ts';

/** A new branch of the namespace's definitions, ACTIVE. */
export async function createBranch(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, namespace: string, name: string) {
  const { ontology } = await branchOntology(deps, principal, namespace);
  const now = deps.clock.now();
  const inserted = await deps.db
    .insertInto('ontology_branches')
    .values({
      id: newId('brn'),
      ontology_id: ontology.id,
      name,
      status: 'ACTIVE',
      account_id: principal.account.id,
      author: principal.kind === 'key' && principal.agent ? `agent:${principal.agent.id}` : 'human',
      last_activity_at: now,
      created_at: now,
    })
    .onConflict((c) => c.constraint('ontology_branches_name').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) throw new DomainError('conflict', `A branch ${name} exists already.`, { details: { branch: name } });
  return getBranch(deps, principal, namespace, name);
}
