import type { DbOrTrx } from '../../db/index.ts';
import { DomainError } from '../../errors.ts';

// Branches of a company's definitions, their pending writes and their proposals.

export const branchNotFound = (name: string) => new DomainError('branch_not_found', `No branch ${name}.`, { details: { branch: name } });

export async function findBranch(db: DbOrTrx, ontologyId: string, name: string, opts: { lock?: boolean } = {}) {
  let q = db.selectFrom('ontology_branches').selectAll().where('ontology_id', '=', ontologyId).where('name', '=', name);
  if (opts.lock) q = q.forUpdate();
  const branch = await q.executeTakeFirst();
  if (!branch) throw branchNotFound(name);
  return branch;
}

/** Any write or proposal is activity: an INACTIVE branch is ACTIVE again and its 35 days start over. */
export async function touchBranch(db: DbOrTrx, branchId: string, now: Date): Promise<void> {
  await db
    .updateTable('ontology_branches')
    .set({ last_activity_at: now, status: 'ACTIVE', inactive_since: null })
    .where('id', '=', branchId)
    .where('status', '<>', 'MERGED')
    .execute();
}

export async function branchWrites(db: DbOrTrx, branchId: string) {
  return db.selectFrom('ontology_branch_writes').selectAll().where('branch_id', '=', branchId).orderBy('seq').execute();
}

export function proposalWire(
  p: {
    id: string;
    title: string;
    status: 'OPEN' | 'APPROVED' | 'REJECTED' | 'MERGED';
    account_id: string | null;
    decided_by: string | null;
    decided_at: Date | null;
    created_at: Date;
  },
  branch: string,
) {
  return {
    id: p.id,
    branch,
    title: p.title,
    status: p.status,
    createdBy: p.account_id,
    decidedBy: p.decided_by,
    decidedAt: p.decided_at?.toISOString() ?? null,
    createdAt: p.created_at.toISOString(),
  };
}
