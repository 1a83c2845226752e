import type { CreateMarkingCategoryInput, MarkingCategoryView } from '../../schemas/markings.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { companyNamed, companyToManage } from '../groups/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { categoryRows, categoryView } from './repository.ts';

/** Creates a marking category of a company: its admins and developers, operators for any company (people.manage). */
export async function createMarkingCategory(
  db: DbOrTrx,
  principal: Principal,
  input: CreateMarkingCategoryInput,
  ip?: string,
): Promise<MarkingCategoryView> {
  const company = await companyToManage(db, principal, companyNamed(principal, input.organization));
  const id = newId('mkc');
  const inserted = await db
    .insertInto('marking_categories')
    .values({
      id,
      company_id: company.id,
      name: input.name,
      description: input.description,
      category_type: input.categoryType === 'CONJUNCTIVE' ? 'conjunctive' : 'disjunctive',
      marking_type: input.markingType === 'MANDATORY' ? 'mandatory' : 'cbac',
      created_by: principal.account.id,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) {
    throw new DomainError('conflict', `${company.cell_id} already has a marking category named ${input.name}.`, {
      details: { organization: company.cell_id, name: input.name },
    });
  }
  await recordSecurityEvent(db, {
    kind: 'marking_category_created',
    accountId: null,
    actorId: principal.account.id,
    ip,
    details: { categoryId: id, organization: company.cell_id, name: input.name, categoryType: input.categoryType },
  });
  return categoryView(db, await categoryRows(db).where('k.id', '=', id).executeTakeFirstOrThrow());
}
