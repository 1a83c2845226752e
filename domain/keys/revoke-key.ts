import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';

/** Revokes one of the caller's keys; revoking it again is not an error. */
export async function revokeKey(db: DbOrTrx, principal: Principal, keyId: string, ip: string) {
  const key = await db
    .selectFrom('developer_keys')
    .select(['account_id', 'revoked_at'])
    .where('id', '=', keyId)
    .forUpdate()
    .executeTakeFirst();
  if (!key) throw new DomainError('agent_key_not_found', `No key ${keyId}.`, { details: { keyId } });
  if (key.account_id !== principal.account.id) {
    throw new DomainError('forbidden', 'That key belongs to another account.', { details: { keyId } });
  }
  if (!key.revoked_at) {
    await db.updateTable('developer_keys').set({ revoked_at: new Date(), revoked_reason: 'owner' }).where('id', '=', keyId).execute();
    await recordSecurityEvent(db, { kind: 'key_revoked', accountId: key.account_id, ip, details: { reason: 'owner', keyIds: [keyId] } });
  }
  return { keyId, revoked: true as const, alreadyRevoked: key.revoked_at !== null };
}
