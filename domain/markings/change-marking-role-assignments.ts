import type { ChangeMarkingRolesInput, MarkingRoleAssignment } from '../../schemas/markings.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { listMarkingRoleAssignments } from './list-marking-role-assignments.ts';
import { assertAssignees, assignmentRows, markingToAdminister, roleStored } from './repository.ts';

const event = (a: MarkingRoleAssignment, markingId: string) => ({
  accountId: a.principalType === 'USER' ? a.principalId : null,
  details: { markingId, principalType: a.principalType, principalId: a.principalId, role: a.role },
});

/** Adds role assignments to a marking (its ADMINISTERs, operators); adding one it has changes nothing. */
export async function addMarkingRoleAssignments(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  id: string,
  input: ChangeMarkingRolesInput,
  ip?: string,
): Promise<{ data: MarkingRoleAssignment[] }> {
  const marking = await markingToAdminister(db, clock.now(), principal, id);
  await assertAssignees(db, marking.company_id, input.roleAssignments);
  const added = await db
    .insertInto('marking_role_assignments')
    .values(assignmentRows(id, input.roleAssignments, principal.account.id))
    .onConflict((oc) => oc.doNothing())
    .returning(['principal', 'role'])
    .execute();
  for (const a of input.roleAssignments.filter((a) => added.some((r) => r.principal === a.principalId && r.role === roleStored(a.role)))) {
    await recordSecurityEvent(db, { kind: 'marking_role_added', actorId: principal.account.id, ip, ...event(a, id) });
  }
  return listMarkingRoleAssignments(db, principal, id);
}

/**
 * Removes role assignments from a marking (its ADMINISTERs, operators; idempotent). The last
 * ADMINISTER is never removed (last_admin_protected): someone must always manage the marking.
 */
export async function removeMarkingRoleAssignments(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  id: string,
  input: ChangeMarkingRolesInput,
  ip?: string,
): Promise<{ data: MarkingRoleAssignment[] }> {
  await markingToAdminister(db, clock.now(), principal, id);
  const admins = await db
    .selectFrom('marking_role_assignments')
    .select('principal')
    .where('marking_id', '=', id)
    .where('role', '=', 'administer')
    .execute();
  const leaving = new Set(input.roleAssignments.filter((a) => a.role === 'ADMINISTER').map((a) => a.principalId));
  if (admins.length > 0 && admins.every((a) => leaving.has(a.principal))) {
    throw new DomainError('last_admin_protected', 'A marking keeps at least one ADMINISTER; add another before removing this one.', {
      details: { markingId: id, administrators: admins.map((a) => a.principal) },
    });
  }
  for (const a of input.roleAssignments) {
    const removed = await db
      .deleteFrom('marking_role_assignments')
      .where('marking_id', '=', id)
      .where('principal', '=', a.principalId)
      .where('role', '=', roleStored(a.role))
      .executeTakeFirst();
    if (removed.numDeletedRows > 0n) {
      await recordSecurityEvent(db, { kind: 'marking_role_removed', actorId: principal.account.id, ip, ...event(a, id) });
    }
  }
  return listMarkingRoleAssignments(db, principal, id);
}
