import type { GroupView } from '../../schemas/groups.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { authorize, type GroupMembership } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

export const groupNotFound = (id: string) => new DomainError('group_not_found', `No group ${id}.`, { details: { groupId: id } });

export const groupRows = (db: DbOrTrx) =>
  db
    .selectFrom('groups as g')
    .innerJoin('companies as c', 'c.id', 'g.company_id')
    .select(['g.id', 'g.name', 'g.description', 'g.max_membership_days', 'g.created_at', 'g.company_id', 'c.cell_id']);

export type GroupRow = Awaited<ReturnType<ReturnType<typeof groupRows>['executeTakeFirstOrThrow']>>;

export const groupView = (g: GroupRow): GroupView => ({
  id: g.id,
  name: g.name,
  description: g.description,
  organization: g.cell_id,
  membershipExpirationPolicy: g.max_membership_days === null ? null : { maximumDurationDays: g.max_membership_days },
  createdAt: g.created_at.toISOString(),
});

/** A company by cell id, for the caller to manage (organization_not_found when there is none). */
export async function companyToManage(db: DbOrTrx, principal: Principal, cellId: string) {
  const company = await db.selectFrom('companies').select(['id', 'cell_id']).where('cell_id', '=', cellId).executeTakeFirst();
  if (!company) throw new DomainError('organization_not_found', `No company ${cellId}.`, { details: { organization: cellId } });
  authorize(principal, 'people.manage', { namespace: company.cell_id });
  return company;
}

/** The company a caller names, or its key's company when it names none. */
export function companyNamed(principal: Principal, cellId: string | undefined): string {
  if (cellId) return cellId;
  if (principal.kind === 'key') return principal.company.cellId;
  throw new DomainError('invalid_payload', 'Name the company (organization).', { details: { path: ['organization'] } });
}

/**
 * A group the caller manages; a group of a company the caller may not manage does not exist for
 * them (group_not_found, never forbidden: group ids of other companies are not confirmed).
 */
export async function groupToManage(db: DbOrTrx, principal: Principal, id: string, opts: { forUpdate?: boolean } = {}): Promise<GroupRow> {
  let q = groupRows(db).where('g.id', '=', id);
  if (opts.forUpdate) q = q.forUpdate('g');
  const group = await q.executeTakeFirst();
  if (!group) throw groupNotFound(id);
  try {
    authorize(principal, 'people.manage', { namespace: group.cell_id });
  } catch {
    throw groupNotFound(id);
  }
  return group;
}

/** Every membership of an account with its group's company (the policy judges expiry at each check). */
export async function membershipsOf(db: DbOrTrx, accountId: string): Promise<GroupMembership[]> {
  const rows = await db
    .selectFrom('group_members as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .select(['m.group_id', 'g.company_id', 'm.expires_at'])
    .where('m.account_id', '=', accountId)
    .execute();
  return rows.map((r) => ({ groupId: r.group_id, companyId: r.company_id, expiresAt: r.expires_at }));
}

/** A group of this company, as the principal of a share or grant: any other id is principal_not_found (no cross-company confirmation). */
export async function assertGroupOf(db: DbOrTrx, groupId: string, companyId: string | null): Promise<{ id: string; name: string }> {
  const group =
    companyId === null
      ? undefined
      : await db
          .selectFrom('groups')
          .select(['id', 'name'])
          .where('id', '=', groupId)
          .where('company_id', '=', companyId)
          .executeTakeFirst();
  if (!group) {
    throw new DomainError('principal_not_found', `No group ${groupId} in this company: only a group of the same company may be named.`, {
      details: { principal: groupId },
    });
  }
  return group;
}
