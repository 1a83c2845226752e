import type { ModuleView, VersionView } from '../../schemas/workshop.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { moduleFor, moduleView, versionFor } from './repository.ts';

type Deps = { db: DbOrTrx; clock: Clock };

/** A module: any role on it (workshop_module_not_found otherwise). */
export async function getModule(deps: Deps, principal: Principal, rid: string): Promise<ModuleView> {
  return moduleView(await moduleFor(deps, principal, rid, 'workshop.read'));
}

/** One version with its definition: Editors and Owners any, Viewers the published one only. */
export async function getModuleVersion(deps: Deps, principal: Principal, rid: string, version: number): Promise<VersionView> {
  return versionFor(deps.db, await moduleFor(deps, principal, rid, 'workshop.read'), version);
}
