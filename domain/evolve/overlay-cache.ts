import type { EvolveChange, OverlayView } from '../../schemas/evolve.ts';
import type { HostedApp, HostedVersion } from '../apps/index.ts';
import { BoundedCache } from '../cache/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { PrincipalCache } from '../keys/index.ts';
import { resolveOverlay, type StoredImprovement } from './overlay.ts';

/** One app's improvements: company-wide, and each person's own, oldest first. */
interface AppImprovements {
  company: StoredImprovement[];
  personal: Map<string, StoredImprovement[]>;
}

const NONE: AppImprovements = { company: [], personal: new Map() };

/**
 * Each process keeps every app's improvements (bounded), so that an open of an app costs no query
 * for them once read: an app without improvements is an empty entry. Any change to improvements
 * empties the principal cache in every process (a trigger's NOTIFY), and this with it; an entry
 * read while a change came in is not kept.
 */
const MAX_WEIGHT = 50_000;
const caches = new WeakMap<PrincipalCache, BoundedCache<string, AppImprovements>>();

function cacheOf(principals: PrincipalCache): BoundedCache<string, AppImprovements> {
  let cache = caches.get(principals);
  if (!cache) {
    const made = new BoundedCache<string, AppImprovements>(MAX_WEIGHT, (a) => 1 + a.company.length + a.personal.size);
    principals.onInvalidate(() => made.clear());
    caches.set(principals, made);
    cache = made;
  }
  return cache;
}

async function loadImprovements(db: DbOrTrx, appId: string): Promise<AppImprovements> {
  const rows = await db
    .selectFrom('evolve_improvements')
    .select(['id', 'account_id', 'changes'])
    .where('app_id', '=', appId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  if (!rows.length) return NONE;
  const found: AppImprovements = { company: [], personal: new Map() };
  for (const row of rows) {
    const improvement = { id: row.id, changes: row.changes as EvolveChange[] };
    if (row.account_id === null) found.company.push(improvement);
    else found.personal.set(row.account_id, [...(found.personal.get(row.account_id) ?? []), improvement]);
  }
  return found;
}

/**
 * The overlay of one visitor (null: anonymous, company-wide only) on the version they open.
 * `current`: the caller has just caught up with every committed change (the open's own catch-up
 * with the principal cache's listener); otherwise nothing cached is trusted and the improvements
 * are read.
 */
export async function overlayFor(
  deps: { db: DbOrTrx; principals: PrincipalCache },
  current: boolean,
  app: HostedApp,
  version: Pick<HostedVersion, 'version' | 'manifest'>,
  accountId: string | null,
): Promise<OverlayView> {
  let improvements: AppImprovements | undefined;
  if (current) improvements = cacheOf(deps.principals).get(app.id);
  if (!improvements) {
    const generation = deps.principals.generation();
    improvements = await loadImprovements(deps.db, app.id);
    if (current && generation === deps.principals.generation()) cacheOf(deps.principals).set(app.id, improvements);
  }
  const own = accountId === null ? [] : (improvements.personal.get(accountId) ?? []);
  return resolveOverlay(`${app.namespace}/${app.slug}`, version, [...improvements.company, ...own]);
}
