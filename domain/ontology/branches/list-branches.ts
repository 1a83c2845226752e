import type { z } from 'zod';
import type { Branch } from '../../../schemas/ontology-actions.ts';
import type { DbOrTrx, OntologyBranchesTable } from '../../db/index.ts';
import type { Clock } from '../../deps.ts';
import type { Principal } from '../../principal.ts';
import { branchOntology } from './branch-access.ts';
import { branchWrites, findBranch } from './repository.ts';

type BranchRow = Omit<OntologyBranchesTable, 'created_at'> & { created_at: Date };

async function branchWire(db: DbOrTrx, b: BranchRow): Promise<z.input<typeof Branch>> {
  return {
    name: b.name,
    status: b.status,
    author: b.author,
    lastActivityAt: b.last_activity_at.toISOString(),
    inactiveSince: b.inactive_since?.toISOString() ?? null,
    createdAt: b.created_at.toISOString(),
    writes: (await branchWrites(db, b.id)).map((w) => ({
      seq: Number(w.seq),
      kind: w.kind,
      request: w.request,
      createdAt: w.created_at.toISOString(),
    })),
  };
}

export async function listBranches(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, namespace: string) {
  const { ontology } = await branchOntology(deps, principal, namespace);
  const rows = await deps.db.selectFrom('ontology_branches').selectAll().where('ontology_id', '=', ontology.id).orderBy('name').execute();
  return Promise.all(rows.map((b) => branchWire(deps.db, b)));
}

export async function getBranch(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, namespace: string, name: string) {
  const { ontology } = await branchOntology(deps, principal, namespace);
  return branchWire(deps.db, await findBranch(deps.db, ontology.id, name));
}
