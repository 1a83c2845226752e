import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { requireRole } from './access.ts';
import { type ResourceView, viewOf } from './describe-resource.ts';
import type { Tier } from './kind.ts';
import { findResource, kindOfRid } from './registry.ts';
import { deleteGrants, grantsOf, putGrant } from './repository.ts';
import { assertTierAllowed } from './tier-rules.ts';

/**
 * One step of the resource tier table (spec States: Resource tier setting), Owner only:
 * private removes every share but the Owners'; group removes Public and Internet grants and, when
 * nobody else has a share, gives the whole organization Viewer; public gives everyone Viewer;
 * internet gives internet Viewer (kinds with an anonymous read entry only, else 422). A tier
 * narrower than the resource's own setting is refused with 409.
 */
export async function setTier(db: DbOrTrx, clock: Clock, principal: Principal, rid: string, tier: Tier): Promise<ResourceView> {
  const visitor = await visitorOf(db, principal, clock.now());
  const resource = await findResource(db, rid);
  const role = await requireRole(db, clock, principal, visitor, resource, 'owner');
  assertTierAllowed(kindOfRid(rid)!.kind, resource, tier);
  const grants = await grantsOf(db, [rid]);
  const shares = grants.filter((g) => g.role !== 'owner').map((g) => g.principal);
  const put = (principal: string) => putGrant(db, { rid, principal, role: 'viewer', by: visitor.accountId });
  switch (tier) {
    case 'private':
      await deleteGrants(db, rid, shares);
      break;
    case 'group': {
      await deleteGrants(db, rid, ['everyone', 'internet']);
      const others = shares.filter((p) => p !== 'everyone' && p !== 'internet');
      if (others.length === 0 && resource.cellId) await put(resource.cellId);
      break;
    }
    case 'public':
      await deleteGrants(db, rid, ['internet']);
      await put('everyone');
      break;
    case 'internet':
      await put('internet');
      break;
  }
  return viewOf(db, resource, role);
}
