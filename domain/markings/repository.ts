import { sql } from 'kysely';
import type { MarkingCategoryView, MarkingRoleAssignment, MarkingView } from '../../schemas/markings.ts';
import type { DbOrTrx, MarkingRole } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { assertGroupOf, companyNamed } from '../groups/index.ts';
import { authorize, can, clearanceAt, type MarkingAssignment, type RequiredMarking } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

export const categoryNotFound = (id: string) =>
  new DomainError('marking_category_not_found', `No marking category ${id}.`, { details: { categoryId: id } });
export const markingNotFound = (id: string) => new DomainError('marking_not_found', `No marking ${id}.`, { details: { markingId: id } });

/** The wire's role names (Foundry's) and the stored ones. */
export const roleOnWire = (role: MarkingRole) => role.toUpperCase() as MarkingRoleAssignment['role'];
export const roleStored = (role: MarkingRoleAssignment['role']) => role.toLowerCase() as MarkingRole;

/** The rows of role assignments given to a marking by an account. */
export const assignmentRows = (markingId: string, assignments: readonly MarkingRoleAssignment[], by: string) =>
  assignments.map((a) => ({ marking_id: markingId, principal: a.principalId, role: roleStored(a.role), created_by: by }));

export const categoryRows = (db: DbOrTrx) =>
  db
    .selectFrom('marking_categories as k')
    .innerJoin('companies as c', 'c.id', 'k.company_id')
    .select([
      'k.id',
      'k.name',
      'k.description',
      'k.category_type',
      'k.marking_type',
      'k.created_by',
      'k.created_at',
      'k.company_id',
      'c.cell_id',
    ]);
export type CategoryRow = Awaited<ReturnType<ReturnType<typeof categoryRows>['executeTakeFirstOrThrow']>>;

export async function categoryView(db: DbOrTrx, k: CategoryRow): Promise<MarkingCategoryView> {
  const markings = await db.selectFrom('markings').select('id').where('category_id', '=', k.id).orderBy(sql`lower(name)`).execute();
  return {
    id: k.id,
    name: k.name,
    description: k.description,
    organization: k.cell_id,
    categoryType: k.category_type === 'conjunctive' ? 'CONJUNCTIVE' : 'DISJUNCTIVE',
    markingType: k.marking_type === 'mandatory' ? 'MANDATORY' : 'CBAC',
    markings: markings.map((m) => m.id),
    createdBy: k.created_by,
    createdTime: k.created_at.toISOString(),
  };
}

export const markingRows = (db: DbOrTrx) =>
  db
    .selectFrom('markings as m')
    .innerJoin('marking_categories as k', 'k.id', 'm.category_id')
    .innerJoin('companies as c', 'c.id', 'k.company_id')
    .select([
      'm.id',
      'm.category_id',
      'm.name',
      'm.description',
      'm.created_by',
      'm.created_at',
      'k.company_id',
      'k.category_type',
      'c.cell_id',
    ]);
export type MarkingRow = Awaited<ReturnType<ReturnType<typeof markingRows>['executeTakeFirstOrThrow']>>;

export const markingView = (m: MarkingRow): MarkingView => ({
  id: m.id,
  categoryId: m.category_id,
  name: m.name,
  description: m.description,
  organization: m.cell_id,
  createdBy: m.created_by,
  createdTime: m.created_at.toISOString(),
});

/** A company a caller reads the markings of (markings.read): its people, operators for every company. */
export async function companyToRead(db: DbOrTrx, principal: Principal, cellId: string | undefined) {
  const named = companyNamed(principal, cellId);
  const company = await db.selectFrom('companies').select(['id', 'cell_id']).where('cell_id', '=', named).executeTakeFirst();
  if (!company) throw new DomainError('organization_not_found', `No company ${named}.`, { details: { organization: named } });
  authorize(principal, 'markings.read', { namespace: company.cell_id });
  return company;
}

/** A category the caller may read; one of a company it may not read does not exist for it (ids are not confirmed across companies). */
export async function categoryToRead(db: DbOrTrx, principal: Principal, id: string): Promise<CategoryRow> {
  const category = await categoryRows(db).where('k.id', '=', id).executeTakeFirst();
  if (!category || !can(principal, 'markings.read', { namespace: category.cell_id })) throw categoryNotFound(id);
  return category;
}

/** A marking the caller may read (markings.read on its company), locked for the change when asked; otherwise marking_not_found. */
export async function markingToRead(
  db: DbOrTrx,
  principal: Principal,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<MarkingRow> {
  let q = markingRows(db).where('m.id', '=', id);
  if (opts.forUpdate) q = q.forUpdate('m');
  const marking = await q.executeTakeFirst();
  if (!marking || !can(principal, 'markings.read', { namespace: marking.cell_id })) throw markingNotFound(id);
  return marking;
}

/** A marking whose role assignments the caller changes: readable, then its ADMINISTER (or an operator). */
export async function markingToAdminister(db: DbOrTrx, now: Date, principal: Principal, id: string): Promise<MarkingRow> {
  const marking = await markingToRead(db, principal, id, { forUpdate: true });
  const role = (await markingRolesOf(db, principal.account.id, [id], now)).get(id) ?? null;
  authorize(principal, 'marking.administer', { markingId: id, role });
  return marking;
}

/**
 * Every role on a marking an account holds, directly or through a group with the membership's end
 * (the policy's clearanceAt judges it at each check): the raw material of its clearance.
 */
export async function assignmentsOf(db: DbOrTrx, accountId: string, markingIds?: readonly string[]): Promise<MarkingAssignment[]> {
  let direct = db.selectFrom('marking_role_assignments').select(['marking_id', 'role']).where('principal', '=', accountId);
  let viaGroup = db
    .selectFrom('marking_role_assignments as a')
    .innerJoin('group_members as gm', 'gm.group_id', 'a.principal')
    .select(['a.marking_id', 'a.role', 'gm.expires_at'])
    .where('gm.account_id', '=', accountId);
  if (markingIds) {
    if (markingIds.length === 0) return [];
    direct = direct.where('marking_id', 'in', markingIds);
    viaGroup = viaGroup.where('a.marking_id', 'in', markingIds);
  }
  const [own, groups] = await Promise.all([direct.execute(), viaGroup.execute()]);
  return [
    ...own.map((a) => ({ markingId: a.marking_id, role: a.role, via: 'account' as const })),
    ...groups.map((a) => ({ markingId: a.marking_id, role: a.role, via: 'group' as const, expiresAt: a.expires_at })),
  ];
}

/** The account's live role on each of these markings at `now`. */
export async function markingRolesOf(db: DbOrTrx, accountId: string, markingIds: readonly string[], now: Date) {
  return clearanceAt(await assignmentsOf(db, accountId, markingIds), now);
}

/** The markings on these resources, each with its category's kind, by rid. */
export async function markingsOnResources(db: DbOrTrx, rids: readonly string[]) {
  const out = new Map<string, (RequiredMarking & { name: string })[]>();
  if (rids.length === 0) return out;
  const rows = await db
    .selectFrom('resource_markings as r')
    .innerJoin('markings as m', 'm.id', 'r.marking_id')
    .innerJoin('marking_categories as k', 'k.id', 'm.category_id')
    .select(['r.rid', 'r.marking_id', 'm.name', 'm.category_id', 'k.category_type'])
    .where('r.rid', 'in', rids)
    .orderBy('r.rid')
    .orderBy('m.name')
    .execute();
  for (const r of rows) {
    const list = out.get(r.rid) ?? [];
    list.push({ markingId: r.marking_id, name: r.name, categoryId: r.category_id, categoryType: r.category_type });
    out.set(r.rid, list);
  }
  return out;
}

/**
 * Checks the principals of role assignments: an active account (any company, as group members may
 * be), or a group of the marking's own company; a principalType that does not match the id is
 * invalid_payload.
 */
export async function assertAssignees(db: DbOrTrx, companyId: string, assignments: readonly MarkingRoleAssignment[]): Promise<void> {
  for (const [i, a] of assignments.entries()) {
    const isGroup = a.principalId.startsWith('grp_');
    if (isGroup !== (a.principalType === 'GROUP')) {
      throw new DomainError('invalid_payload', `${a.principalId} is not a ${a.principalType}.`, {
        details: {
          problems: [{ path: `roleAssignments.${i}.principalType`, code: 'invalid_value', message: 'does not match principalId' }],
        },
      });
    }
  }
  const groups = [...new Set(assignments.filter((a) => a.principalType === 'GROUP').map((a) => a.principalId))];
  for (const g of groups) await assertGroupOf(db, g, companyId);
  const users = [...new Set(assignments.filter((a) => a.principalType === 'USER').map((a) => a.principalId))];
  if (users.length === 0) return;
  const found = await db.selectFrom('accounts').select('id').where('id', 'in', users).where('status', '!=', 'disabled').execute();
  const missing = users.filter((id) => !found.some((a) => a.id === id));
  if (missing.length > 0) {
    throw new DomainError('principal_not_found', `No active account ${missing[0]}.`, { details: { principalIds: missing } });
  }
}
