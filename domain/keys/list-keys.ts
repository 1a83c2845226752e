import type { KeySummary } from '../../schemas/identity.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { keysOf } from './repository.ts';

/** The caller's own keys that are not revoked, newest first (prefix only). */
export async function listKeys(db: DbOrTrx, principal: Principal): Promise<KeySummary[]> {
  const currentKeyId = principal.kind === 'key' ? principal.key.id : undefined;
  const keys = await keysOf(db, principal.account.id, { liveOnly: true });
  // Agent keys the account issued are the company's (listed under developer/agent-keys), not its own logins.
  return keys
    .filter((k) => k.issuedBy !== 'agent')
    .map(({ keyId, prefix, role, clientName, company, createdAt, lastUsedAt }) => ({
      keyId,
      prefix,
      role,
      clientName,
      company,
      createdAt,
      lastUsedAt,
      current: keyId === currentKeyId,
    }));
}
