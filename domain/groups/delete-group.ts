import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { groupToManage } from './repository.ts';

/**
 * Deletes a group: its memberships and shares go with it (foreign keys; tickets opened through a
 * share with it too), its resource grants here (a ticket opened through one ends at its next use:
 * authentication finds no membership), its roles on markings here (a group that is the last
 * ADMINISTER of a marking stays: last_admin_protected); every process's cache forgets it at once
 * (NOTIFY trigger).
 */
export async function deleteGroup(db: DbOrTrx, principal: Principal, id: string, ip?: string): Promise<{ deleted: true }> {
  const group = await groupToManage(db, principal, id, { forUpdate: true });
  await db.deleteFrom('resource_grants').where('principal', '=', id).execute();
  const administered = await db
    .selectFrom('marking_role_assignments as a')
    .select('a.marking_id')
    .where('a.principal', '=', id)
    .where('a.role', '=', 'administer')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('marking_role_assignments as o')
            .select('o.principal')
            .whereRef('o.marking_id', '=', 'a.marking_id')
            .where('o.role', '=', 'administer')
            .where('o.principal', '!=', id),
        ),
      ),
    )
    .execute();
  if (administered.length > 0) {
    throw new DomainError('last_admin_protected', 'This group is the last ADMINISTER of a marking: give the marking another first.', {
      details: { groupId: id, markingIds: administered.map((m) => m.marking_id) },
    });
  }
  await db.deleteFrom('marking_role_assignments').where('principal', '=', id).execute();
  await db.deleteFrom('groups').where('id', '=', id).execute();
  await recordSecurityEvent(db, {
    kind: 'group_deleted',
    accountId: null,
    actorId: principal.account.id,
    ip,
    details: { groupId: id, organization: group.cell_id, name: group.name },
  });
  return { deleted: true };
}
