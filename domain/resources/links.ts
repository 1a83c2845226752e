import { visitorOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { equalHashes, newId, randomBase62, sha256 } from '../security/index.ts';
import { requireRole, roleOf } from './access.ts';
import { findResource } from './registry.ts';
import { putGrant } from './repository.ts';

/** Spec Limits: an invitation link is valid 30 days unless told otherwise. */
export const LINK_DEFAULT_DAYS = 30;
const TOKEN_PATTERN = /^[0-9A-Za-z]{33}$/;

/** An invitation link to a resource (Owner only, rule 6): the token is returned once and kept as a hash. */
export async function createLink(db: DbOrTrx, clock: Clock, principal: Principal, rid: string, days = LINK_DEFAULT_DAYS) {
  const visitor = await visitorOf(db, principal, clock.now());
  const resource = await findResource(db, rid);
  await requireRole(db, clock, principal, visitor, resource, 'owner');
  const token = randomBase62(24);
  const id = newId('lnk');
  const expiresAt = new Date(clock.now().getTime() + days * 24 * 60 * 60 * 1000);
  await db
    .insertInto('resource_links')
    .values({ id, rid, hash: sha256(token), expires_at: expiresAt, revoked_at: null, created_by: visitor.accountId })
    .execute();
  return { id, rid, token, expiresAt: expiresAt.toISOString() };
}

export async function revokeLink(db: DbOrTrx, clock: Clock, principal: Principal, rid: string, linkId: string) {
  const visitor = await visitorOf(db, principal, clock.now());
  const resource = await findResource(db, rid);
  await requireRole(db, clock, principal, visitor, resource, 'owner');
  const result = await db
    .updateTable('resource_links')
    .set({ revoked_at: clock.now() })
    .where('id', '=', linkId)
    .where('rid', '=', rid)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  const exists = await db.selectFrom('resource_links').select('id').where('id', '=', linkId).where('rid', '=', rid).executeTakeFirst();
  if (!exists) throw new DomainError('not_found', `No link ${linkId} of ${rid}.`, { details: { linkId } });
  return { id: linkId, revoked: true as const, alreadyRevoked: result.numUpdatedRows === 0n };
}

/**
 * Redeems an invitation link (login required, rule 6): the caller gets a Viewer grant (the group
 * tier); a caller who already has a role keeps it.
 */
export async function redeemLink(db: DbOrTrx, clock: Clock, principal: Principal, token: string) {
  const visitor = await visitorOf(db, principal, clock.now());
  const invalid = () => new DomainError('not_found', 'This invitation link was revoked, has expired or does not exist.');
  if (!TOKEN_PATTERN.test(token)) throw invalid();
  const hash = sha256(token);
  const link = await db.selectFrom('resource_links').selectAll().where('hash', '=', hash).executeTakeFirst();
  if (!link || !equalHashes(link.hash, hash) || link.revoked_at || link.expires_at <= clock.now()) throw invalid();
  const resource = await findResource(db, link.rid);
  const before = await roleOf(db, clock, principal, visitor, resource);
  if (!before) await putGrant(db, { rid: link.rid, principal: visitor.accountId, role: 'viewer', by: link.created_by });
  return { rid: link.rid, role: before ?? ('viewer' as const), granted: !before };
}
