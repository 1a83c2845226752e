import type { GroupMemberView } from '../../schemas/groups.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { groupToManage } from './repository.ts';

/** A group's live members by account id, a page at a time (ended memberships are not listed: they grant nothing). */
export async function listGroupMembers(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  groupId: string,
  input: { pageSize: number; pageToken?: string | undefined; only?: readonly string[] },
): Promise<{ data: GroupMemberView[]; nextPageToken: string | null }> {
  const group = await groupToManage(db, principal, groupId);
  const now = clock.now();
  let q = db
    .selectFrom('group_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['a.id', 'a.username', 'm.expires_at'])
    .where('m.group_id', '=', group.id)
    .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', now)]));
  if (input.only) q = q.where('a.id', 'in', input.only);
  if (input.pageToken) q = q.where('a.id', '>', input.pageToken);
  const rows = await q
    .orderBy('a.id')
    .limit(input.pageSize + 1)
    .execute();
  const page = rows.slice(0, input.pageSize);
  return {
    data: page.map((r) => ({
      principalId: r.id,
      principalType: 'USER' as const,
      username: r.username,
      expiration: r.expires_at?.toISOString() ?? null,
    })),
    nextPageToken: rows.length > input.pageSize ? page[page.length - 1]!.id : null,
  };
}
