import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { moduleFor, versionView } from './repository.ts';

/** The module's versions, newest first, without their definitions: Editors and Owners every one, Viewers the published one. */
export async function listModuleVersions(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, rid: string) {
  const opened = await moduleFor(deps, principal, rid, 'workshop.read');
  const { row } = opened;
  let q = deps.db
    .selectFrom('workshop_module_versions')
    .select(['version', 'created_at', 'created_by'])
    .where('module_id', '=', row.id)
    .orderBy('version', 'desc')
    .limit(1000);
  if (!opened.seesDrafts) q = q.where('version', '=', row.published_version ?? 0);
  return (await q.execute()).map((v) => {
    const { definition: _, ...summary } = versionView(row, { ...v, definition: null });
    return summary;
  });
}
