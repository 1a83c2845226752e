import type { ModuleDefinition, VersionView } from '../../schemas/workshop.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { checkDefinition } from './check-definition.ts';
import { insertVersion, moduleFor, versionFor } from './repository.ts';

/** Saves a definition as the module's next numbered version (Owners and Editors), checked against the ontology as the saver sees it. */
export async function saveModuleVersion(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  rid: string,
  definition: ModuleDefinition,
): Promise<VersionView> {
  const opened = await moduleFor(deps, principal, rid, 'workshop.edit', { forUpdate: true });
  await checkDefinition(deps, principal, opened.row.cell_id, definition);
  const version = await insertVersion(deps.db, opened.row.id, definition, principal.account.id);
  return versionFor(deps.db, opened, version);
}
