import { getAccount } from '../accounts/get-account.ts';
import type { DbOrTrx } from '../db/database.ts';

/** For operators: every key of an account, revoked ones with when and why (prefix only). */
export async function listAccountKeys(db: DbOrTrx, accountId: string) {
  await getAccount(db, accountId);
  const rows = await db
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
    .orderBy('k.id')
    .execute();
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
