import type { SetUserAttributesInput, UserAttributesView } from '../../schemas/identity.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { can } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { customAttributesOf } from './repository.ts';

/**
 * `PUT /api/v1/admin/users/{id}/attributes` (issue 29, Deliver 5): replaces a company's custom
 * attributes of one of its people, for its admins and developers and operators (people.manage);
 * a company whose people the caller does not manage does not exist for it (organization_not_found),
 * an account without a license there is user_not_found. `svc:` attributes derive from the account
 * and are never set (attributes_not_editable). Recorded as user_attributes_set.
 */
export async function setUserAttributes(
  db: DbOrTrx,
  principal: Principal,
  accountId: string,
  input: SetUserAttributesInput,
  ip?: string,
): Promise<UserAttributesView> {
  const company = await db.selectFrom('companies').select(['id', 'cell_id']).where('cell_id', '=', input.organization).executeTakeFirst();
  if (!company || !can(principal, 'people.manage', { namespace: company.cell_id })) {
    throw new DomainError('organization_not_found', `No company ${input.organization}.`, { details: { organization: input.organization } });
  }
  const licensed = await db
    .selectFrom('licenses')
    .select('account_id')
    .where('account_id', '=', accountId)
    .where('company_id', '=', company.id)
    .executeTakeFirst();
  if (!licensed) throw new DomainError('user_not_found', `No user ${accountId} in ${company.cell_id}.`, { details: { id: accountId } });
  const names = Object.keys(input.attributes);
  const derived = names.find((n) => n.startsWith('svc:'));
  if (derived !== undefined) {
    throw new DomainError('attributes_not_editable', `${derived} derives from the account; only custom attributes are set.`, {
      details: { path: ['attributes', derived] },
    });
  }
  await db.deleteFrom('account_attributes').where('account_id', '=', accountId).where('company_id', '=', company.id).execute();
  const rows = Object.entries(input.attributes)
    .map(([name, values]) => ({ name, values: [...new Set(values)] }))
    .filter((a) => a.values.length > 0)
    .map((a) => ({ ...a, account_id: accountId, company_id: company.id, updated_by: principal.account.id }));
  if (rows.length > 0) await db.insertInto('account_attributes').values(rows).execute();
  await recordSecurityEvent(db, {
    kind: 'user_attributes_set',
    accountId,
    actorId: principal.account.id,
    ip,
    details: { organization: company.cell_id, names: rows.map((r) => r.name) },
  });
  return { userId: accountId, organization: company.cell_id, attributes: await customAttributesOf(db, accountId, company.id) };
}
