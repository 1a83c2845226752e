import type { DbOrTrx } from '../db/index.ts';
import { cacheFamily, type PrincipalCache, readThrough } from '../keys/index.ts';
import { clearanceOf, markingsOnResources } from '../markings/index.ts';
import { NO_CLEARANCE, type RequiredMarking, satisfiesMarkings } from '../policy/index.ts';
import { appRids } from './app-grant.ts';

/** The markings on an app's resource and its company's applications resource, by their rids. */
const APP_MARKINGS = cacheFamily<RequiredMarking[]>('app-markings');

/**
 * Whether an account at `now` (null: the anonymous visitor, cleared for nothing) satisfies the markings on an
 * app's resource and those it inherits from its company's applications resource (domain/policy
 * satisfiesMarkings). The markings are kept in the principal cache (a change of a resource's
 * markings empties it).
 */
export async function clearedForApp(
  deps: { db: DbOrTrx; principals?: PrincipalCache | undefined },
  caller: { accountId: string; now: Date } | null,
  app: { namespace: string; slug: string; companyId: string | null },
): Promise<boolean> {
  const rids = appRids(app);
  const load = async () => [...(await markingsOnResources(deps.db, rids)).values()].flat();
  const marked = (await readThrough(deps, APP_MARKINGS, rids.join('\u0000'), load))!;
  if (marked.length === 0) return true;
  const clearance = caller === null ? NO_CLEARANCE : await clearanceOf(deps, caller.accountId, caller.now);
  return satisfiesMarkings(clearance, marked);
}
