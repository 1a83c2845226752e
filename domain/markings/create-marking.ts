import type { CreateMarkingInput, MarkingView } from '../../schemas/markings.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { assertAssignees, assignmentRows, categoryToRead, markingRows, markingView } from './repository.ts';

/**
 * Creates a marking in a category (its company's admins and developers, operators: people.manage),
 * with its initial role assignments, at least one ADMINISTER among them, so that someone always
 * manages it. Names are unique per category, whatever their case (marking_name_exists).
 */
export async function createMarking(db: DbOrTrx, principal: Principal, input: CreateMarkingInput, ip?: string): Promise<MarkingView> {
  const category = await categoryToRead(db, principal, input.categoryId);
  authorize(principal, 'people.manage', { namespace: category.cell_id });
  if (!input.initialRoleAssignments.some((a) => a.role === 'ADMINISTER')) {
    throw new DomainError('invalid_payload', 'A marking needs at least one ADMINISTER among its initial role assignments.', {
      details: { problems: [{ path: 'initialRoleAssignments', code: 'invalid_value', message: 'needs at least one ADMINISTER' }] },
    });
  }
  await assertAssignees(db, category.company_id, input.initialRoleAssignments);
  const id = newId('mkg');
  const inserted = await db
    .insertInto('markings')
    .values({ id, category_id: category.id, name: input.name, description: input.description, created_by: principal.account.id })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) {
    throw new DomainError('marking_name_exists', `The category ${category.name} already has a marking named ${input.name}.`, {
      details: { categoryId: category.id, name: input.name },
    });
  }
  await db
    .insertInto('marking_role_assignments')
    .values(assignmentRows(id, input.initialRoleAssignments, principal.account.id))
    .onConflict((oc) => oc.doNothing())
    .execute();
  await recordSecurityEvent(db, {
    kind: 'marking_created',
    accountId: null,
    actorId: principal.account.id,
    ip,
    details: {
      markingId: id,
      categoryId: category.id,
      organization: category.cell_id,
      name: input.name,
      roleAssignments: input.initialRoleAssignments,
    },
  });
  return markingView(await markingRows(db).where('m.id', '=', id).executeTakeFirstOrThrow());
}
