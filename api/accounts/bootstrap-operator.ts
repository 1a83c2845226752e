import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { ScryptParams } from '../security/password-hash.ts';
import { createAccount } from './create-account.ts';
import { findAccountByLogin } from './repository.ts';

/** The platform's own company: operators' keys act for it. */
export const PLATFORM_COMPANY = { cellId: 'cell-platform', name: 'Platform operators' };

/**
 * A fresh instance is usable: the operator named by SVC_OPERATOR_LOGIN and
 * SVC_OPERATOR_PASSWORD is created once, with a developer and admin license in
 * the platform company. An existing account is never changed.
 */
export async function bootstrapOperator(db: Db, config: Config, hashing: ScryptParams): Promise<'created' | 'exists' | 'not-configured'> {
  const operator = config.operator;
  if (!operator) return 'not-configured';
  return db.transaction().execute(async (trx) => {
    if (await findAccountByLogin(trx, operator.login)) return 'exists';
    await trx
      .insertInto('companies')
      .values({ id: 'org_platform', cell_id: PLATFORM_COMPANY.cellId, name: PLATFORM_COMPANY.name })
      .onConflict((oc) => oc.column('cell_id').doNothing())
      .execute();
    const isEmail = operator.login.includes('@');
    await createAccount(trx, hashing, {
      username: isEmail ? operator.login.split('@')[0]!.replace(/[^A-Za-z0-9._-]/g, '-') : operator.login,
      email: operator.email ?? (isEmail ? operator.login : `${operator.login}@localhost.invalid`),
      password: operator.password,
      mustChangePassword: false,
      emailVerified: true,
      platformStaff: true,
      organizations: [{ cellId: PLATFORM_COMPANY.cellId, role: 'developer', admin: true }],
    });
    return 'created';
  });
}
