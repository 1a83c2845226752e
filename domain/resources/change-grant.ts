import { problem } from '../../schemas/problems.ts';
import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx, ResourceRole } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { requireRole } from './access.ts';
import { type ResourceView, viewOf } from './describe-resource.ts';
import { assertPrincipalExists } from './principals.ts';
import { findResource, kindOfRid } from './registry.ts';
import { deleteGrants, putGrant } from './repository.ts';
import { assertInternetAllowed } from './tier-rules.ts';

/**
 * roles/add (Owner only, rule 1): Public (everyone) and Internet grants may be Viewer only (rule
 * 2); internet only on kinds with an anonymous read entry (rule 3, 422).
 */
export async function addGrant(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  rid: string,
  grant: { principal: string; role: ResourceRole },
): Promise<ResourceView> {
  const visitor = await visitorOf(db, principal, clock.now());
  const resource = await findResource(db, rid);
  const role = await requireRole(db, clock, principal, visitor, resource, 'owner');
  const kind = await assertPrincipalExists(db, grant.principal, resource.companyId);
  if ((kind === 'everyone' || kind === 'internet') && grant.role !== 'viewer') {
    throw new DomainError('invalid_payload', 'Public and Internet grants may be Viewer only.', {
      details: { problems: [problem('role', 'invalid_value', 'must be viewer for everyone and internet')] },
    });
  }
  if (kind === 'internet') assertInternetAllowed(kindOfRid(rid)!.kind, resource);
  await putGrant(db, { rid, principal: grant.principal, role: grant.role, by: visitor.accountId });
  return viewOf(db, resource, role);
}

/** roles/remove (Owner only); removing a grant that does not exist changes nothing. */
export async function removeGrant(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  rid: string,
  grantee: string,
): Promise<ResourceView & { removed: boolean }> {
  const visitor = await visitorOf(db, principal, clock.now());
  const resource = await findResource(db, rid);
  const role = await requireRole(db, clock, principal, visitor, resource, 'owner');
  const removed = (await deleteGrants(db, rid, [grantee])) > 0;
  return { ...(await viewOf(db, resource, role)), removed };
}
