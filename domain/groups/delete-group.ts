import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { groupToManage } from './repository.ts';

/**
 * Deletes a group: its memberships and shares go with it (foreign keys; tickets opened through a
 * share with it too), its resource grants here (a ticket opened through one ends at its next use:
 * authentication finds no membership); every process's cache forgets it at once (NOTIFY trigger).
 */
export async function deleteGroup(db: DbOrTrx, principal: Principal, id: string, ip?: string): Promise<{ deleted: true }> {
  const group = await groupToManage(db, principal, id, { forUpdate: true });
  await db.deleteFrom('resource_grants').where('principal', '=', id).execute();
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
