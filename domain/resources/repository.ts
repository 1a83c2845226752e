import type { DbOrTrx, ResourceRole } from '../db/index.ts';
import { revokeTicketsOfGrants } from '../keys/index.ts';

export const ROLE_RANK: Record<ResourceRole, number> = { viewer: 1, editor: 2, owner: 3 };
export const higherRole = (a: ResourceRole | null, b: ResourceRole | null) => (!a ? b : !b ? a : ROLE_RANK[a] >= ROLE_RANK[b] ? a : b);

export async function grantsOf(db: DbOrTrx, rids: readonly string[]) {
  if (rids.length === 0) return [];
  return db.selectFrom('resource_grants').select(['rid', 'principal', 'role']).where('rid', 'in', rids).orderBy('principal').execute();
}

/** Adds or changes a grant; lowering one ends the app tickets opened through it (a ticket carries the role judged at its open). */
export async function putGrant(db: DbOrTrx, input: { rid: string; principal: string; role: ResourceRole; by: string | null }) {
  const before = await db
    .selectFrom('resource_grants')
    .select('role')
    .where('rid', '=', input.rid)
    .where('principal', '=', input.principal)
    .executeTakeFirst();
  await db
    .insertInto('resource_grants')
    .values({ rid: input.rid, principal: input.principal, role: input.role, created_by: input.by })
    .onConflict((oc) => oc.columns(['rid', 'principal']).doUpdateSet({ role: input.role }))
    .execute();
  if (before && ROLE_RANK[input.role] < ROLE_RANK[before.role]) await revokeTicketsOfGrants(db, input.rid, [input.principal]);
}

/** Removes grants, and with them the app tickets opened through them. */
export async function deleteGrants(db: DbOrTrx, rid: string, principals: readonly string[]): Promise<number> {
  if (principals.length === 0) return 0;
  const result = await db.deleteFrom('resource_grants').where('rid', '=', rid).where('principal', 'in', principals).executeTakeFirst();
  await revokeTicketsOfGrants(db, rid, principals);
  return Number(result.numDeletedRows);
}

/** Resources granted to any of these principals (for listings of shared and public resources). */
export async function ridsGrantedTo(db: DbOrTrx, principals: readonly string[]): Promise<string[]> {
  const rows = await db.selectFrom('resource_grants').select('rid').distinct().where('principal', 'in', principals).limit(500).execute();
  return rows.map((r) => r.rid);
}
