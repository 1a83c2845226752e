import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { roleOf } from './access.ts';
import { type ResourceView, viewOf } from './describe-resource.ts';
import type { ResourceRecord } from './kind.ts';
import { principalsOf } from './principals.ts';
import { kindNamed, kindOfRid, RESOURCE_KINDS } from './registry.ts';
import { ridsGrantedTo } from './repository.ts';

export type Scope = 'public' | 'organization' | 'shared' | 'mine';

/**
 * Visible resources (spec D): `organization` those of the caller's companies, `shared` those of
 * other companies granted to the caller, `public` those open to everyone or the internet, `mine`
 * those the caller created. Only resources on which the caller has a role are listed.
 */
export async function listResources(db: DbOrTrx, clock: Clock, principal: Principal, scope: Scope, type?: string): Promise<ResourceView[]> {
  const visitor = await visitorOf(db, principal, clock.now());
  const kinds = type === undefined ? RESOURCE_KINDS : [kindNamed(type)].filter((k) => k !== undefined);
  if (kinds.length === 0)
    throw new DomainError('invalid_payload', `No resource type ${type}.`, { details: { types: RESOURCE_KINDS.map((k) => k.name) } });
  const companyIds = visitor.licenses.map((l) => l.companyId);
  let candidates: ResourceRecord[];
  if (scope === 'organization' || scope === 'mine') {
    candidates = (await Promise.all(kinds.map((k) => k.listOf(db, companyIds)))).flat();
    if (scope === 'mine') candidates = candidates.filter((r) => r.createdBy === visitor.accountId);
  } else {
    const principals =
      scope === 'public' ? ['everyone', 'internet'] : principalsOf(visitor).filter((p) => p !== 'everyone' && p !== 'internet');
    const found = await Promise.all(
      (await ridsGrantedTo(db, principals)).map(async (rid) => {
        const parsed = kindOfRid(rid);
        return parsed && kinds.includes(parsed.kind) ? parsed.kind.find(db, parsed.id) : undefined;
      }),
    );
    candidates = found.filter((r): r is ResourceRecord => r !== undefined);
    if (scope === 'shared') candidates = candidates.filter((r) => r.companyId === null || !companyIds.includes(r.companyId));
  }
  const views: ResourceView[] = [];
  for (const resource of candidates) {
    const role = await roleOf(db, clock, principal, visitor, resource);
    if (role) views.push(await viewOf(db, resource, role));
  }
  return views;
}
