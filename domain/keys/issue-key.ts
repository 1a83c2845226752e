import type { CompanyRole, DbOrTrx } from '../db/index.ts';
import { newId, sha256 } from '../security/index.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { generateKey } from './key-format.ts';

export const DEFAULT_CLIENT_NAME = 'svc client';

export interface IssuedKey {
  id: string;
  /** Shown once, in the response that issues it; only its hash is stored. */
  plaintext: string;
  displayPrefix: string;
}

export async function issueKey(
  db: DbOrTrx,
  input: {
    accountId: string;
    companyId: string;
    role: CompanyRole;
    clientName?: string | undefined;
    issuedBy: 'password' | 'device';
    /** Where the request that receives the key came from. */
    ip: string;
  },
): Promise<IssuedKey> {
  const { plaintext, displayPrefix } = generateKey();
  const id = newId('key');
  await db
    .insertInto('developer_keys')
    .values({
      id,
      hash: sha256(plaintext),
      display_prefix: displayPrefix,
      account_id: input.accountId,
      company_id: input.companyId,
      role: input.role,
      client_name: input.clientName ?? DEFAULT_CLIENT_NAME,
      issued_by: input.issuedBy,
    })
    .execute();
  await recordSecurityEvent(db, {
    kind: 'key_issued',
    accountId: input.accountId,
    ip: input.ip,
    details: { keyId: id, prefix: displayPrefix, companyId: input.companyId, role: input.role, issuedBy: input.issuedBy },
  });
  return { id, plaintext, displayPrefix };
}
