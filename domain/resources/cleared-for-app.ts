import type { DbOrTrx } from '../db/index.ts';
import type { PrincipalCache } from '../keys/index.ts';
import { clearanceOf, markingsOnResources } from '../markings/index.ts';
import { NO_CLEARANCE, satisfiesMarkings } from '../policy/index.ts';
import { appRids } from './app-grant.ts';

/**
 * Whether an account at `now` (null: the anonymous visitor, cleared for nothing) satisfies the markings on an
 * app's resource and those it inherits from its company's applications resource (domain/policy
 * satisfiesMarkings). One query when nothing is marked.
 */
export async function clearedForApp(
  deps: { db: DbOrTrx; principals?: PrincipalCache | undefined },
  caller: { accountId: string; now: Date } | null,
  app: { namespace: string; slug: string; companyId: string | null },
): Promise<boolean> {
  const marked = await markingsOnResources(deps.db, appRids(app));
  if (marked.size === 0) return true;
  const clearance = caller === null ? NO_CLEARANCE : await clearanceOf(deps, caller.accountId, caller.now);
  return satisfiesMarkings(clearance, [...marked.values()].flat());
}
