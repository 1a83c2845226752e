import type { CompanyRole, DbOrTrx } from '../db/database.ts';
import { newId, sha256 } from '../security/random.ts';
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
  input: { accountId: string; companyId: string; role: CompanyRole; clientName?: string | undefined; issuedBy: 'password' | 'device' },
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
  return { id, plaintext, displayPrefix };
}
