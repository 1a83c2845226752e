import type { DbOrTrx } from '../db/index.ts';
import type { PrincipalCache } from '../keys/index.ts';
import { clearanceAt, type MarkingAssignment, type MarkingClearance } from '../policy/index.ts';
import { assignmentsOf } from './repository.ts';

const cacheKey = (accountId: string) => `clearance:${accountId}`;

/**
 * An account's marking clearance at `now`: its roles on markings, directly and through groups it
 * is a live member of then (the policy's clearanceAt). The assignments are cached with the other
 * principal data where a cache is given; any change of a role assignment, a membership or a marking
 * empties every process's cache (NOTIFY), and membership ends are judged at each check, so an
 * expired one clears nothing even from the cache.
 */
export async function clearanceOf(
  deps: { db: DbOrTrx; principals?: PrincipalCache | undefined },
  accountId: string,
  now: Date,
): Promise<MarkingClearance> {
  const cache = deps.principals;
  const hit = cache && (await cache.get(cacheKey(accountId)));
  let assignments: readonly MarkingAssignment[];
  if (hit && 'markingAssignments' in hit) {
    assignments = hit.markingAssignments;
  } else {
    const generation = cache?.generation() ?? 0;
    assignments = await assignmentsOf(deps.db, accountId);
    cache?.set(cacheKey(accountId), generation, { markingAssignments: assignments });
  }
  return clearanceAt(assignments, now);
}
