import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { effectiveGrants, requireRole } from './access.ts';
import { findResource } from './registry.ts';

/** GET roles: the resource's grants, those it inherits, and the implicit rules that also give roles. */
export async function listRoles(db: DbOrTrx, clock: Clock, principal: Principal, rid: string) {
  const visitor = await visitorOf(db, principal, clock.now());
  const resource = await findResource(db, rid);
  await requireRole(db, clock, principal, visitor, resource, 'viewer');
  const { own, inherited } = await effectiveGrants(db, resource);
  return {
    rid,
    grants: [
      ...own.map((g) => ({ principal: g.principal, role: g.role, inheritedFrom: null })),
      ...inherited.map((g) => ({ principal: g.principal, role: g.role, inheritedFrom: g.rid })),
    ],
    implicit: [
      ...(resource.cellId
        ? [{ principal: `${resource.cellId}:developers`, role: 'owner' as const, rule: 'A company developer is always Owner.' }]
        : []),
      ...(resource.createdBy ? [{ principal: resource.createdBy, role: 'owner' as const, rule: 'The creator is an Owner.' }] : []),
    ],
  };
}
