import type { CreateGroupInput, GroupView } from '../../schemas/groups.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { companyNamed, companyToManage, groupRows, groupView } from './repository.ts';

/** Creates a group of a company; names are unique per company, whatever their case (group_name_exists). */
export async function createGroup(db: DbOrTrx, principal: Principal, input: CreateGroupInput, ip?: string): Promise<GroupView> {
  const company = await companyToManage(db, principal, companyNamed(principal, input.organization));
  const id = newId('grp');
  const inserted = await db
    .insertInto('groups')
    .values({
      id,
      company_id: company.id,
      name: input.name,
      description: input.description,
      max_membership_days: input.membershipExpirationPolicy?.maximumDurationDays ?? null,
      created_by: principal.account.id,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) {
    throw new DomainError('group_name_exists', `${company.cell_id} already has a group named ${input.name}.`, {
      details: { organization: company.cell_id, name: input.name },
    });
  }
  await recordSecurityEvent(db, {
    kind: 'group_created',
    accountId: null,
    actorId: principal.account.id,
    ip,
    details: { groupId: id, organization: company.cell_id, name: input.name },
  });
  return groupView(await groupRows(db).where('g.id', '=', id).executeTakeFirstOrThrow());
}
