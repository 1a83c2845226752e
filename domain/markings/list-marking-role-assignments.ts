import type { MarkingRoleAssignment } from '../../schemas/markings.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { markingToRead, roleOnWire } from './repository.ts';

/** A marking's role assignments, by principal and role (any reader of the marking sees who holds it). */
export async function listMarkingRoleAssignments(
  db: DbOrTrx,
  principal: Principal,
  id: string,
): Promise<{ data: MarkingRoleAssignment[] }> {
  const marking = await markingToRead(db, principal, id);
  const rows = await db
    .selectFrom('marking_role_assignments')
    .select(['principal', 'role'])
    .where('marking_id', '=', marking.id)
    .orderBy('principal')
    .orderBy('role')
    .execute();
  return {
    data: rows.map((r) => ({
      principalType: r.principal.startsWith('grp_') ? ('GROUP' as const) : ('USER' as const),
      principalId: r.principal,
      role: roleOnWire(r.role),
    })),
  };
}
