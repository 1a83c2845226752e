import type { AccountView, UserView } from '../../schemas/identity.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { getAccount } from './get-account.ts';
import { peopleScope } from './people-scope.ts';

const asUser = (a: AccountView): UserView => ({
  id: a.id,
  username: a.username,
  email: a.email,
  status: a.status,
  givenName: a.givenName,
  familyName: a.familyName,
  organization: a.organization,
  attributes: a.attributes,
});

/**
 * One user as the caller may see them: operators any account; a company admin or developer only
 * people licensed in their company (with only that license): anyone else is user_not_found.
 */
export async function getUser(db: DbOrTrx, principal: Principal, id: string): Promise<UserView> {
  const companyIds = await peopleScope(db, principal);
  const account = await getAccount(db, id, companyIds);
  if (companyIds && account.licenses.length === 0) throw new DomainError('user_not_found', `No account ${id}.`, { details: { id } });
  return asUser(account);
}

/** The caller itself, with every company it is licensed in. */
export async function getCurrentUser(db: DbOrTrx, principal: Principal): Promise<UserView> {
  return asUser(await getAccount(db, principal.account.id));
}
