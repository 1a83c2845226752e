import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import { hashPassword, type ScryptParams } from '../security/index.ts';
import { createAccount } from './create-account.ts';
import { findAccountByLogin } from './repository.ts';

/** The platform's own company: operators' keys act for it. */
export const PLATFORM_COMPANY = { cellId: 'cell-platform', name: 'Platform operators' };

export interface OperatorSettings {
  login: string;
  password: string;
  email?: string | undefined;
}

/**
 * A fresh instance is usable: the operator named by SVC_OPERATOR_LOGIN and
 * SVC_OPERATOR_PASSWORD is created once, with a developer and admin license in
 * the platform company. An existing account is never changed.
 */
export async function bootstrapOperator(
  db: Db,
  operator: OperatorSettings | undefined,
  hashing: ScryptParams,
): Promise<'created' | 'exists' | 'not-configured'> {
  if (!operator) return 'not-configured';
  if (await findAccountByLogin(db, operator.login)) return 'exists';
  const passwordHash = await hashPassword(operator.password, hashing);
  return db.transaction().execute(async (trx) => {
    // API processes of one cluster start together: the first creates the account, the others wait and find it.
    await sql`SELECT pg_advisory_xact_lock(hashtext('bootstrap-operator'))`.execute(trx);
    if (await findAccountByLogin(trx, operator.login)) return 'exists';
    await trx
      .insertInto('companies')
      .values({ id: 'org_platform', cell_id: PLATFORM_COMPANY.cellId, name: PLATFORM_COMPANY.name })
      .onConflict((oc) => oc.column('cell_id').doNothing())
      .execute();
    const isEmail = operator.login.includes('@');
    await createAccount(trx, {
      username: isEmail ? operator.login.split('@')[0]!.replace(/[^A-Za-z0-9._-]/g, '-') : operator.login,
      email: operator.email ?? (isEmail ? operator.login : `${operator.login}@localhost.invalid`),
      passwordHash,
      mustChangePassword: false,
      emailVerified: true,
      platformStaff: true,
      licenses: [{ cellId: PLATFORM_COMPANY.cellId, role: 'developer', admin: true }],
    });
    return 'created';
  });
}
