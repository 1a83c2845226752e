import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx, ResourceRole } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { roleOf } from './access.ts';
import { kindOfRid } from './registry.ts';

/**
 * The caller's role on the resource a rid names, for capabilities that own a kind of resource
 * (media sets) and hand the role to the policy: null when the caller has none or no such resource exists.
 */
export async function callerRoleOn(db: DbOrTrx, clock: Clock, principal: Principal, rid: string): Promise<ResourceRole | null> {
  const parsed = kindOfRid(rid);
  const resource = parsed && (await parsed.kind.find(db, parsed.id));
  if (!resource) return null;
  return roleOf(db, clock, principal, await visitorOf(db, principal, clock.now()), resource);
}
