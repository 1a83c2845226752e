import type { KeySummary } from '../../schemas/identity.ts';
import type { DbOrTrx } from '../db/database.ts';
import type { Principal } from '../principal.ts';

/** The caller's keys that are not revoked, newest first (prefix only). */
export async function listKeys(db: DbOrTrx, principal: Principal): Promise<KeySummary[]> {
  const rows = await db
    .selectFrom('developer_keys as k')
    .innerJoin('companies as c', 'c.id', 'k.company_id')
    .select(['k.id', 'k.display_prefix', 'k.role', 'k.client_name', 'k.created_at', 'k.last_used_at', 'c.cell_id', 'c.name'])
    .where('k.account_id', '=', principal.account.id)
    .where('k.revoked_at', 'is', null)
    .orderBy('k.created_at', 'desc')
    .orderBy('k.id')
    .execute();
  const currentKeyId = principal.kind === 'key' ? principal.key.id : undefined;
  return rows.map((r) => ({
    keyId: r.id,
    prefix: r.display_prefix,
    role: r.role,
    clientName: r.client_name,
    company: { cellId: r.cell_id, name: r.name },
    createdAt: r.created_at.toISOString(),
    lastUsedAt: r.last_used_at?.toISOString() ?? null,
    current: r.id === currentKeyId,
  }));
}
