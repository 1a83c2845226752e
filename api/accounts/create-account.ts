import { sql } from 'kysely';
import { findCompany } from '../companies/find-company.ts';
import { setLicense } from '../companies/set-license.ts';
import type { DbOrTrx } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { hashPassword, type ScryptParams } from '../security/password-hash.ts';
import { newId } from '../security/random.ts';
import type { CreateAccountInput } from './schemas.ts';

export async function createAccount(db: DbOrTrx, hashing: ScryptParams, input: CreateAccountInput & { platformStaff?: boolean }): Promise<string> {
  const clash = await db
    .selectFrom('accounts')
    .select(['username', 'email'])
    .where((eb) =>
      eb.or([eb(sql`lower(username)`, '=', input.username.toLowerCase()), eb(sql`lower(email)`, '=', input.email.toLowerCase())]),
    )
    .executeTakeFirst();
  if (clash) {
    const field = clash.username.toLowerCase() === input.username.toLowerCase() ? 'username' : 'email';
    throw new ApiError('conflict', 409, { field }, `An account with that ${field} already exists.`);
  }
  // Resolve every organization before writing anything, so a bad one names itself.
  const companies = await Promise.all(input.organizations.map((o) => findCompany(db, o.cellId)));

  const id = newId('acc');
  await db
    .insertInto('accounts')
    .values({
      id,
      username: input.username,
      email: input.email,
      password_hash: input.password ? await hashPassword(input.password, hashing) : null,
      status: input.password ? 'active' : 'pending',
      email_verified: input.emailVerified,
      must_change_password: input.mustChangePassword,
      platform_staff: input.platformStaff ?? false,
    })
    .execute();
  for (const [i, org] of input.organizations.entries()) {
    await setLicense(db, { accountId: id, companyId: companies[i]!.id, role: org.role, admin: org.admin });
  }
  return id;
}
