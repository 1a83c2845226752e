import type { CreateAccountInput } from '../../schemas/identity.ts';
import { findCompany, upsertLicense } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../security/index.ts';
import { findAccountClash } from './repository.ts';

export interface NewAccount extends Omit<CreateAccountInput, 'password'> {
  /** Hashed before the transaction opens (scrypt is slow); null makes a pending account. */
  passwordHash: string | null;
  platformStaff?: boolean;
}

async function refuseClash(db: DbOrTrx, input: NewAccount): Promise<void> {
  const clash = await findAccountClash(db, input.username, input.email);
  if (clash) {
    const field = clash.username.toLowerCase() === input.username.toLowerCase() ? 'username' : 'email';
    throw new DomainError('conflict', `An account with that ${field} already exists.`, { details: { field } });
  }
}

export async function createAccount(db: DbOrTrx, input: NewAccount): Promise<string> {
  await refuseClash(db, input);
  // Resolve every company before writing anything, so a bad one names itself.
  const companies = await Promise.all(input.licenses.map((l) => findCompany(db, l.cellId)));

  const id = newId('acc');
  const inserted = await db
    .insertInto('accounts')
    .values({
      id,
      username: input.username,
      email: input.email,
      password_hash: input.passwordHash,
      status: input.passwordHash ? 'active' : 'pending',
      email_verified: input.emailVerified,
      must_change_password: input.mustChangePassword,
      platform_staff: input.platformStaff ?? false,
    })
    // A concurrent request may create the same username or email between the check and
    // here; the insert then does nothing and the check, run again, names the field.
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) {
    await refuseClash(db, input);
    throw new DomainError('conflict', 'An account with that username or email already exists.');
  }
  for (const [i, license] of input.licenses.entries()) {
    await upsertLicense(db, { accountId: id, companyId: companies[i]!.id, role: license.role, admin: license.admin });
  }
  return id;
}
