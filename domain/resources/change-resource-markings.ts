import type { ResourceMarkingView } from '../../schemas/markings.ts';
import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { markingNotFound, markingRolesOf, markingRows } from '../markings/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { roleOf } from './access.ts';
import { markingViews } from './list-resource-markings.ts';
import { findResource } from './registry.ts';

/**
 * Puts markings on a resource or takes them off (the policy's resource.mark: an Owner of the
 * resource, with USE on each marking to add it and DECLASSIFY to remove it). Only markings of the
 * resource's own company exist here (marking_not_found otherwise); adding one it has, or removing
 * one it has not, changes nothing. Every change is in the security event log.
 */
export async function changeResourceMarkings(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  rid: string,
  change: 'add' | 'remove',
  markingIds: readonly string[],
  ip?: string,
): Promise<{ data: ResourceMarkingView[] }> {
  const visitor = await visitorOf(db, principal, clock.now());
  const resource = await findResource(db, rid);
  const ids = [...new Set(markingIds)];
  const found = await markingRows(db).where('m.id', 'in', ids).execute();
  const missing = ids.find((id) => !found.some((m) => m.id === id && m.company_id === resource.companyId));
  const role = await roleOf(db, clock, principal, visitor, resource);
  // A resource the caller cannot see stays unseen (not_found) before any marking is judged.
  authorize(principal, 'resource.read', { rid, role });
  if (missing) throw markingNotFound(missing);
  const roles = await markingRolesOf(db, visitor.accountId, ids, clock.now());
  authorize(principal, 'resource.mark', { rid, role, change, markings: ids.map((id) => ({ markingId: id, role: roles.get(id) ?? null })) });
  for (const id of ids) {
    const changed =
      change === 'add'
        ? (
            await db
              .insertInto('resource_markings')
              .values({ rid, marking_id: id, created_by: visitor.accountId })
              .onConflict((oc) => oc.doNothing())
              .executeTakeFirst()
          ).numInsertedOrUpdatedRows
        : (await db.deleteFrom('resource_markings').where('rid', '=', rid).where('marking_id', '=', id).executeTakeFirst()).numDeletedRows;
    if (changed && changed > 0n) {
      await recordSecurityEvent(db, {
        kind: change === 'add' ? 'resource_marking_added' : 'resource_marking_removed',
        accountId: null,
        actorId: visitor.accountId,
        ip,
        details: { rid, markingId: id },
      });
    }
  }
  return { data: await markingViews(db, resource) };
}
