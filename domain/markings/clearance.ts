import type { DbOrTrx } from '../db/index.ts';
import { cacheFamily, type PrincipalCache, readThrough } from '../keys/index.ts';
import { clearanceAt, type MarkingAssignment, type MarkingClearance } from '../policy/index.ts';
import { assignmentsOf } from './repository.ts';

/** An account's roles on markings, direct and through groups, by account id. */
const ASSIGNMENTS = cacheFamily<readonly MarkingAssignment[]>('clearance');

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
  const assignments = await readThrough(deps, ASSIGNMENTS, accountId, () => assignmentsOf(deps.db, accountId));
  return clearanceAt(assignments ?? [], now);
}
