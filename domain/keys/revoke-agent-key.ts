import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { agentKeyCompany } from './agent-key-company.ts';

/** Any developer of the company revokes one of its agent keys; revoking it again is not an error. */
export async function revokeAgentKey(db: DbOrTrx, principal: Principal, namespace: string, keyId: string, ip: string) {
  const company = await agentKeyCompany(db, principal, namespace);
  const key = await db
    .selectFrom('developer_keys')
    .select(['account_id', 'revoked_at'])
    .where('id', '=', keyId)
    .where('company_id', '=', company.id)
    .where('agent_id', 'is not', null)
    .forUpdate()
    .executeTakeFirst();
  if (!key) throw new DomainError('agent_key_not_found', `No agent key ${keyId} in ${company.cell_id}.`, { details: { keyId } });
  if (!key.revoked_at) {
    await db.updateTable('developer_keys').set({ revoked_at: new Date(), revoked_reason: 'owner' }).where('id', '=', keyId).execute();
    await recordSecurityEvent(db, {
      kind: 'key_revoked',
      accountId: key.account_id,
      actorId: principal.account.id,
      ip,
      details: { reason: 'owner', keyIds: [keyId], agentKey: true },
    });
  }
  return { keyId, revoked: true as const, alreadyRevoked: key.revoked_at !== null };
}
