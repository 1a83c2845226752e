import type { z } from 'zod';
import { DefineTypesRequest } from '../../../schemas/ontology.ts';
import type { BranchWriteResult } from '../../../schemas/ontology-actions.ts';
import { issuesToProblems, reportedProblems } from '../../../schemas/problems.ts';
import type { DbOrTrx } from '../../db/index.ts';
import type { Clock } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import type { Principal } from '../../principal.ts';
import { parseActionTypes } from '../define-action-types.ts';
import { branchOntology } from './branch-access.ts';
import { findBranch, touchBranch } from './repository.ts';

export type BranchWriteKind = 'objectTypes' | 'actionTypes';

function parseObjectTypes(input: unknown) {
  const parsed = DefineTypesRequest.safeParse(input);
  if (!parsed.success) {
    throw new DomainError('definition_invalid', undefined, {
      details: { errorName: 'InvalidDefinition', ...reportedProblems(issuesToProblems(parsed.error.issues, '')) },
    });
  }
  return parsed.data;
}

/**
 * `?branch=` on a definition route: the batch (checked for shape, 422 with paths) waits on the
 * branch, after the earlier ones; merging a proposal applies them in order to the main definition,
 * where the references and stored objects are checked.
 */
export async function writeToBranch(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  name: string,
  kind: BranchWriteKind,
  input: unknown,
): Promise<z.input<typeof BranchWriteResult>> {
  const { ontology } = await branchOntology(deps, principal, namespace);
  const request = kind === 'objectTypes' ? parseObjectTypes(input) : parseActionTypes(input);
  const branch = await findBranch(deps.db, ontology.id, name, { lock: true });
  if (branch.status === 'MERGED')
    throw new DomainError('conflict', `Branch ${name} is merged; create a new branch.`, { details: { branch: name } });
  const written = await deps.db
    .insertInto('ontology_branch_writes')
    .values({
      branch_id: branch.id,
      kind,
      request: JSON.stringify(request),
      account_id: principal.account.id,
      created_at: deps.clock.now(),
    })
    .returning('seq')
    .executeTakeFirstOrThrow();
  await touchBranch(deps.db, branch.id, deps.clock.now());
  const pending = await deps.db
    .selectFrom('ontology_branch_writes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('branch_id', '=', branch.id)
    .executeTakeFirstOrThrow();
  return { branch: name, kind, seq: Number(written.seq), pendingWrites: Number(pending.n) };
}
