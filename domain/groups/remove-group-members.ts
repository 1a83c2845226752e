import type { RemoveGroupMembersInput } from '../../schemas/groups.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { groupToManage } from './repository.ts';

/**
 * Removes accounts from a group (idempotent: accounts not in it are ignored). Their access through
 * the group ends at once: the next check finds no membership, tickets opened through it included.
 */
export async function removeGroupMembers(
  db: DbOrTrx,
  principal: Principal,
  groupId: string,
  input: RemoveGroupMembersInput,
  ip?: string,
): Promise<{ removed: string[] }> {
  const group = await groupToManage(db, principal, groupId, { forUpdate: true });
  const removed = await db
    .deleteFrom('group_members')
    .where('group_id', '=', group.id)
    .where('account_id', 'in', [...new Set(input.principalIds)])
    .returning('account_id')
    .execute();
  for (const { account_id } of removed) {
    await recordSecurityEvent(db, {
      kind: 'group_member_removed',
      accountId: account_id,
      actorId: principal.account.id,
      ip,
      details: { groupId: group.id, organization: group.cell_id },
    });
  }
  return { removed: removed.map((r) => r.account_id) };
}
