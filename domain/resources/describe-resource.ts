import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx, ResourceRole } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { generalAccessOf, requireRole } from './access.ts';
import type { ResourceRecord, Tier } from './kind.ts';
import { findResource } from './registry.ts';
import { grantsOf } from './repository.ts';

export interface ResourceView {
  rid: string;
  kind: string;
  title: string;
  organization: string | null;
  role: ResourceRole;
  generalAccess: Tier;
  floor: Tier;
  parent: string | null;
}

export async function viewOf(db: DbOrTrx, resource: ResourceRecord, role: ResourceRole): Promise<ResourceView> {
  return {
    rid: resource.rid,
    kind: resource.kind,
    title: resource.title,
    organization: resource.cellId,
    role,
    generalAccess: generalAccessOf(resource, await grantsOf(db, [resource.rid])),
    floor: resource.floor,
    parent: resource.parent,
  };
}

/** GET resources/{rid}: the resource, the caller's role and its general access; 404 when the caller has no role. */
export async function describeResource(db: DbOrTrx, clock: Clock, principal: Principal, rid: string): Promise<ResourceView> {
  const visitor = await visitorOf(db, principal, clock.now());
  const resource = await findResource(db, rid);
  return viewOf(db, resource, await requireRole(db, clock, principal, visitor, resource, 'viewer'));
}
