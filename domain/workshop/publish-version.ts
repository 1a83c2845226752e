import type { VersionView } from '../../schemas/workshop.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { checkDefinition } from './check-definition.ts';
import { moduleFor, versionFor } from './repository.ts';

/**
 * Makes a version the one members open (Owners only). Its definition is checked again against the
 * ontology as the publisher sees it now: types or actions removed since the save are 422.
 */
export async function publishModuleVersion(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  rid: string,
  version: number,
): Promise<VersionView> {
  const opened = await moduleFor(deps, principal, rid, 'workshop.manage', { forUpdate: true });
  const found = await versionFor(deps.db, opened, version);
  await checkDefinition(deps, principal, opened.row.cell_id, found.definition);
  await deps.db.updateTable('workshop_modules').set({ published_version: version }).where('id', '=', opened.row.id).execute();
  return { ...found, published: true };
}
