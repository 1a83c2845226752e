import type { ModuleView } from '../../schemas/workshop.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { listResources } from '../resources/index.ts';
import { moduleFor, moduleView } from './repository.ts';

/** The modules the caller has a role on, of its companies and shared with it (the generic resource listings of the kind), by name. */
export async function listModules(deps: { db: DbOrTrx; clock: Clock }, principal: Principal): Promise<ModuleView[]> {
  const rids = new Set<string>();
  for (const scope of ['organization', 'shared'] as const) {
    for (const r of await listResources(deps.db, deps.clock, principal, scope, 'workshop-module')) rids.add(r.rid);
  }
  const views = await Promise.all([...rids].map((rid) => moduleFor(deps, principal, rid, 'workshop.read').then(moduleView)));
  return views.sort((a, b) => a.name.localeCompare(b.name) || a.rid.localeCompare(b.rid));
}
