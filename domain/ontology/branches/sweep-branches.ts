import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/index.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Spec "Branches": INACTIVE after 35 days without activity, deleted 7 days later. */
export const BRANCH_INACTIVE_AFTER_DAYS = 35;
export const BRANCH_DELETED_AFTER_DAYS = 7;

/**
 * One sweep at `now` (the workflow's time): ACTIVE branches idle 35 days become INACTIVE; INACTIVE
 * and MERGED branches 7 days past that are deleted, with their writes and proposals (cascade).
 */
export async function sweepBranches(db: DbOrTrx, now: Date): Promise<{ inactivated: number; deleted: number }> {
  const idleSince = new Date(now.getTime() - BRANCH_INACTIVE_AFTER_DAYS * DAY_MS);
  const deleteBefore = new Date(now.getTime() - BRANCH_DELETED_AFTER_DAYS * DAY_MS);
  const deleted = await db
    .deleteFrom('ontology_branches')
    .where('status', 'in', ['INACTIVE', 'MERGED'])
    .where('inactive_since', '<=', deleteBefore)
    .executeTakeFirst();
  // Inactive since the day the 35 days ran out, so the 7 days count from then even after a late sweep.
  const inactivated = await db
    .updateTable('ontology_branches')
    .set({ status: 'INACTIVE', inactive_since: sql<Date>`last_activity_at + ${`${BRANCH_INACTIVE_AFTER_DAYS} days`}::interval` })
    .where('status', '=', 'ACTIVE')
    .where('last_activity_at', '<=', idleSince)
    .executeTakeFirst();
  return { inactivated: Number(inactivated.numUpdatedRows), deleted: Number(deleted.numDeletedRows) };
}
