import type { AddGroupMembersInput, GroupMemberView } from '../../schemas/groups.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { listGroupMembers } from './list-group-members.ts';
import { groupToManage } from './repository.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

const invalidExpiration = (message: string, details: Record<string, unknown>) =>
  new DomainError('invalid_group_membership_expiration', message, { details });

/**
 * Adds accounts to a group (spec G; any active account, as a named share may name one of another
 * company). Adding a member again sets its expiration. The expiration must be in the future and,
 * under the group's membership expiration policy, within its maximum duration; without one, the
 * policy's maximum applies.
 */
export async function addGroupMembers(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  groupId: string,
  input: AddGroupMembersInput,
  ip?: string,
): Promise<{ data: GroupMemberView[] }> {
  const group = await groupToManage(db, principal, groupId, { forUpdate: true });
  const now = clock.now();
  const latest = group.max_membership_days === null ? null : new Date(now.getTime() + group.max_membership_days * DAY_MS);
  let expiresAt = input.expiration === undefined ? latest : new Date(input.expiration);
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw invalidExpiration('The membership expiration is in the past.', { expiration: input.expiration, now: now.toISOString() });
  }
  if (expiresAt && latest && expiresAt.getTime() > latest.getTime()) {
    throw invalidExpiration(`Memberships of this group last at most ${group.max_membership_days} days.`, {
      expiration: input.expiration,
      latest: latest.toISOString(),
    });
  }
  expiresAt ??= null;
  const ids = [...new Set(input.principalIds)];
  const found = await db.selectFrom('accounts').select('id').where('id', 'in', ids).where('status', '!=', 'disabled').execute();
  const missing = ids.filter((id) => !found.some((a) => a.id === id));
  if (missing.length > 0) {
    throw new DomainError('principal_not_found', `No active account ${missing[0]}.`, { details: { principalIds: missing } });
  }
  await db
    .insertInto('group_members')
    .values(ids.map((id) => ({ account_id: id, group_id: group.id, expires_at: expiresAt, added_by: principal.account.id })))
    .onConflict((oc) => oc.columns(['account_id', 'group_id']).doUpdateSet({ expires_at: expiresAt, added_by: principal.account.id }))
    .execute();
  for (const id of ids) {
    await recordSecurityEvent(db, {
      kind: 'group_member_added',
      accountId: id,
      actorId: principal.account.id,
      ip,
      details: { groupId: group.id, organization: group.cell_id, expiration: expiresAt?.toISOString() ?? null },
    });
  }
  const members = await listGroupMembers(db, clock, principal, group.id, { pageSize: ids.length, only: ids });
  return { data: members.data };
}
