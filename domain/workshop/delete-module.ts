import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { forgetResource } from '../resources/index.ts';
import { moduleFor, moduleRid } from './repository.ts';

/** Deletes a module, its versions, and the grants, markings and links on it (Owners only); open auto-refresh streams end at their next check (404). */
export async function deleteModule(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  rid: string,
): Promise<{ rid: string; deleted: true }> {
  const { row } = await moduleFor(deps, principal, rid, 'workshop.manage', { forUpdate: true });
  await forgetResource(deps.db, moduleRid(row.id));
  await deps.db.deleteFrom('workshop_modules').where('id', '=', row.id).execute();
  return { rid, deleted: true };
}
