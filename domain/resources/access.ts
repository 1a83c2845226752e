import type { DbOrTrx, ResourceRole } from '../db/database.ts';
import { DomainError } from '../errors.ts';
import type { Visitor } from '../hosting/check-app-access.ts';
import { type ResourceRecord, type Tier, tierRank } from './kind.ts';
import { principalsOf } from './principals.ts';
import { grantsOf, higherRole } from './repository.ts';

/** The grants that count for a resource: its own and, inherited, its parent's (own grants only add). */
export async function effectiveGrants(db: DbOrTrx, resource: ResourceRecord) {
  const own = await grantsOf(db, [resource.rid]);
  const inherited = resource.parent ? await grantsOf(db, [resource.parent]) : [];
  return { own, inherited };
}

/**
 * The caller's role on a resource (rules 1 and 4): Owner for the company's developers and the
 * creator; otherwise the highest role any of the caller's principals holds on the resource or the
 * resource it inherits from; null when none.
 */
export async function roleOf(db: DbOrTrx, visitor: Visitor, resource: ResourceRecord): Promise<ResourceRole | null> {
  const developer = visitor.licenses.some((l) => l.companyId === resource.companyId && l.role === 'developer');
  if (developer || (resource.createdBy !== null && resource.createdBy === visitor.accountId)) return 'owner';
  const mine = new Set(principalsOf(visitor));
  const { own, inherited } = await effectiveGrants(db, resource);
  return [...own, ...inherited]
    .filter((g) => mine.has(g.principal))
    .reduce<ResourceRole | null>((best, g) => higherRole(best, g.role), null);
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

export async function requireRole(
  db: DbOrTrx,
  visitor: Visitor,
  resource: ResourceRecord,
  needed: 'viewer' | 'owner',
): Promise<ResourceRole> {
  const role = await roleOf(db, visitor, resource);
  // Resources the caller cannot see do not exist for them.
  if (!role) throw new DomainError('not_found', `No resource ${resource.rid}.`, { details: { rid: resource.rid } });
  if (needed === 'owner' && role !== 'owner') {
    throw new DomainError('forbidden', 'Only an Owner may change sharing.', { details: { role, required: 'owner' } });
  }
  return role;
}
