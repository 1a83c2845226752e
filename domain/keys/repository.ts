import type { DbOrTrx, KeyRevocationReason } from '../db/index.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { revokeTicketsOf } from './revoke-tickets.ts';

export interface KeysRevocation {
  accountId: string;
  /** Only the keys acting for this company. */
  companyId?: string | undefined;
  reason: KeyRevocationReason;
  /** The operator, when someone other than the account acts. */
  actorId?: string | undefined;
  ip?: string | undefined;
}

/**
 * Revokes, for good, an account's live keys and logs it: re-enabling the account or
 * granting the license again does not bring them back. Returns the revoked ids. The account's
 * app tickets (for that company's apps, when one is named) go with them: whatever ends the keys
 * (an operator, a password change or reset, a disabled account, a removed license) means the
 * person's credentials are no longer trusted, and a ticket is re-issued by opening the app again.
 */
export async function revokeKeysOf(db: DbOrTrx, input: KeysRevocation): Promise<string[]> {
  let query = db
    .updateTable('developer_keys')
    .set({ revoked_at: new Date(), revoked_reason: input.reason })
    .where('account_id', '=', input.accountId)
    .where('revoked_at', 'is', null);
  if (input.companyId !== undefined) query = query.where('company_id', '=', input.companyId);
  const keyIds = (await query.returning('id').execute()).map((r) => r.id).sort();
  await revokeTicketsOf(db, input.accountId, input.companyId);
  if (keyIds.length > 0) {
    await recordSecurityEvent(db, {
      kind: 'key_revoked',
      accountId: input.accountId,
      actorId: input.actorId,
      ip: input.ip,
      details: { reason: input.reason, keyIds },
    });
  }
  return keyIds;
}

/** An account's keys with their company, newest first: what both key listings show. */
export async function keysOf(db: DbOrTrx, accountId: string, opts: { liveOnly: boolean }) {
  let query = db
    .selectFrom('developer_keys as k')
    .innerJoin('companies as c', 'c.id', 'k.company_id')
    .select([
      'k.id',
      'k.display_prefix',
      'k.role',
      'k.client_name',
      'k.issued_by',
      'k.created_at',
      'k.last_used_at',
      'k.revoked_at',
      'k.revoked_reason',
      'c.cell_id',
      'c.name',
    ])
    .where('k.account_id', '=', accountId)
    .orderBy('k.created_at', 'desc')
    .orderBy('k.id');
  if (opts.liveOnly) query = query.where('k.revoked_at', 'is', null);
  const rows = await query.execute();
  return rows.map((r) => ({
    keyId: r.id,
    prefix: r.display_prefix,
    role: r.role,
    clientName: r.client_name,
    issuedBy: r.issued_by,
    company: { cellId: r.cell_id, name: r.name },
    createdAt: r.created_at.toISOString(),
    lastUsedAt: r.last_used_at?.toISOString() ?? null,
    revokedAt: r.revoked_at?.toISOString() ?? null,
    revokedReason: r.revoked_reason,
  }));
}
