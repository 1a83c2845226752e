import type { ResourceMarkingView } from '../../schemas/markings.ts';
import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { markingsOf, requireRole } from './access.ts';
import type { ResourceRecord } from './kind.ts';
import { findResource } from './registry.ts';

export async function markingViews(db: DbOrTrx, resource: ResourceRecord): Promise<ResourceMarkingView[]> {
  return (await markingsOf(db, resource)).map((m) => ({
    markingId: m.markingId,
    name: m.name,
    categoryId: m.categoryId,
    categoryType: m.categoryType === 'conjunctive' ? ('CONJUNCTIVE' as const) : ('DISJUNCTIVE' as const),
    inheritedFrom: m.inheritedFrom,
  }));
}

/** GET resources/{rid}/markings: its own markings and those it inherits; any role on it (and its markings satisfied) to see them. */
export async function listResourceMarkings(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  rid: string,
): Promise<{ data: ResourceMarkingView[] }> {
  const visitor = await visitorOf(db, principal, clock.now());
  const resource = await findResource(db, rid);
  await requireRole(db, clock, principal, visitor, resource, 'viewer');
  return { data: await markingViews(db, resource) };
}
