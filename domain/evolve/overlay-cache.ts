import type { EvolveChange, OverlayView } from '../../schemas/evolve.ts';
import type { HostedApp, HostedVersion } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { cacheFamily, type PrincipalCache, readThrough } from '../keys/index.ts';
import { resolveOverlay, type StoredImprovement } from './overlay.ts';

/** One app's improvements: company-wide, and each person's own, oldest first. */
interface AppImprovements {
  company: StoredImprovement[];
  personal: Map<string, StoredImprovement[]>;
}

const NONE: AppImprovements = { company: [], personal: new Map() };

/**
 * Every app's improvements, kept in the principal cache so that an open of an app costs no query
 * for them once read: an app without improvements is an empty entry. Any change to improvements
 * empties the principal cache in every process (a trigger's NOTIFY).
 */
const IMPROVEMENTS = cacheFamily<AppImprovements>('improvements');

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

/** The overlay of one visitor (null: anonymous, company-wide only) on the version they open. */
export async function overlayFor(
  deps: { db: DbOrTrx; principals: PrincipalCache },
  app: HostedApp,
  version: Pick<HostedVersion, 'version' | 'manifest'>,
  accountId: string | null,
): Promise<OverlayView> {
  const improvements = (await readThrough(deps, IMPROVEMENTS, app.id, () => loadImprovements(deps.db, app.id)))!;
  const own = accountId === null ? [] : (improvements.personal.get(accountId) ?? []);
  return resolveOverlay(`${app.namespace}/${app.slug}`, version, [...improvements.company, ...own]);
}
