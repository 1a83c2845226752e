import type { UpdateAccountInput } from '../../schemas/identity.ts';
import { problem } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { revokeKeysOf } from '../keys/index.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { getAccount } from './get-account.ts';
import { endSessionsOf } from './repository.ts';

export interface AccountChange extends Omit<UpdateAccountInput, 'password'> {
  /** The new password, hashed before the transaction opens. */
  passwordHash?: string | undefined;
}

/**
 * An operator disables or re-enables an account, sets its flags or a new
 * password. A disabled account, or one whose password was reset (say, after a
 * compromise), keeps no web session and no key: its keys are revoked for good,
 * so re-enabling the account does not bring them back.
 */
export async function updateAccount(db: DbOrTrx, operator: Principal, accountId: string, change: AccountChange, ip: string) {
  const current = await db
    .selectFrom('accounts')
    .select(['password_hash', 'status'])
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw new DomainError('user_not_found', `No account ${accountId}.`, { details: { id: accountId } });
  if (change.attributes !== undefined) {
    throw new DomainError('attributes_not_editable', undefined, { details: { path: ['attributes'] } });
  }
  if (change.status === 'disabled' && accountId === operator.account.id) {
    throw new DomainError('forbidden', 'Operators cannot disable their own account.');
  }
  if (change.status === 'active' && !(change.passwordHash ?? current.password_hash)) {
    const message = 'a pending account needs a password to become active';
    throw new DomainError('invalid_payload', message, { details: { problems: [problem('password', 'required', message)] } });
  }
  await db
    .updateTable('accounts')
    .set({
      ...(change.status ? { status: change.status } : {}),
      ...(change.passwordHash ? { password_hash: change.passwordHash, failed_logins: 0, locked_until: null } : {}),
      ...(change.mustChangePassword !== undefined ? { must_change_password: change.mustChangePassword } : {}),
      ...(change.emailVerified !== undefined ? { email_verified: change.emailVerified } : {}),
    })
    .where('id', '=', accountId)
    .execute();
  const by = { accountId, actorId: operator.account.id, ip };
  if (change.passwordHash) {
    await recordSecurityEvent(db, { kind: 'password_reset', ...by });
    await revokeKeysOf(db, { ...by, reason: 'password_reset' });
  }
  if (change.status && change.status !== current.status) {
    await recordSecurityEvent(db, { kind: change.status === 'disabled' ? 'account_disabled' : 'account_enabled', ...by });
  }
  if (change.status === 'disabled') await revokeKeysOf(db, { ...by, reason: 'account_disabled' });
  if (change.status === 'disabled' || change.passwordHash) await endSessionsOf(db, accountId);
  return getAccount(db, accountId);
}
