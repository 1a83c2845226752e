import type { DbOrTrx, ResourceRole } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { clearanceOf, markingsOnResources } from '../markings/index.ts';
import { authorize, NO_CLEARANCE, resourceRoleOf, type Visitor } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { type ResourceRecord, type Tier, tierRank } from './kind.ts';
import { principalsOf } from './principals.ts';
import { grantsOf, higherRole } from './repository.ts';

/** The grants that count for a resource: its own and, inherited, its parent's (own grants only add). */
export async function effectiveGrants(db: DbOrTrx, resource: ResourceRecord) {
  const own = await grantsOf(db, [resource.rid]);
  const inherited = resource.parent ? await grantsOf(db, [resource.parent]) : [];
  return { own, inherited };
}

/** The markings on a resource: its own and, inherited, its parent's (an object type carries its ontology's), each with where it comes from. */
export async function markingsOf(db: DbOrTrx, resource: ResourceRecord) {
  const byRid = await markingsOnResources(db, [resource.rid, ...(resource.parent ? [resource.parent] : [])]);
  return [
    ...(byRid.get(resource.rid) ?? []).map((m) => ({ ...m, inheritedFrom: null })),
    ...(resource.parent ? (byRid.get(resource.parent) ?? []) : []).map((m) => ({ ...m, inheritedFrom: resource.parent })),
  ];
}

/**
 * The caller's role on a resource (rules 1 and 4): the highest role any of the caller's principals
 * holds on the resource or the resource it inherits from, raised to Owner by the policy's implicit
 * rules (domain/policy resourceRoleOf: developers of the company, while they hold the license);
 * null when none, or when the caller does not satisfy the resource's markings (own and inherited).
 */
export async function roleOf(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  visitor: Visitor,
  resource: ResourceRecord,
): Promise<ResourceRole | null> {
  const mine = new Set(principalsOf(visitor));
  const { own, inherited } = await effectiveGrants(db, resource);
  const granted = [...own, ...inherited]
    .filter((g) => mine.has(g.principal))
    .reduce<ResourceRole | null>((best, g) => higherRole(best, g.role), null);
  const required = await markingsOf(db, resource);
  const clearance = required.length === 0 ? NO_CLEARANCE : await clearanceOf({ db }, visitor.accountId, clock.now());
  return resourceRoleOf(principal, resource, granted, { required, clearance });
}

/** How open a resource is by its own grants, never below its own setting (its floor). */
export function generalAccessOf(resource: ResourceRecord, own: readonly { principal: string; role: ResourceRole }[]): Tier {
  const principals = new Set(own.filter((g) => g.role !== 'owner').map((g) => g.principal));
  const byGrants: Tier = principals.has('internet')
    ? 'internet'
    : principals.has('everyone')
      ? 'public'
      : principals.size > 0
        ? 'group'
        : 'private';
  return tierRank(byGrants) >= tierRank(resource.floor) ? byGrants : resource.floor;
}

/** The caller's role, after the policy's decision: reading it (404 without a role: it does not exist for them) or changing its sharing (Owners). */
export async function requireRole(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  visitor: Visitor,
  resource: ResourceRecord,
  needed: 'viewer' | 'owner',
): Promise<ResourceRole> {
  const role = await roleOf(db, clock, principal, visitor, resource);
  authorize(principal, needed === 'owner' ? 'resource.change-sharing' : 'resource.read', { rid: resource.rid, role });
  return role as ResourceRole;
}
