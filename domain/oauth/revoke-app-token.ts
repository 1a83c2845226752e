import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { sha256 } from '../security/index.ts';
import { ACCESS_PREFIX, isSecret, REFRESH_PREFIX } from './token-format.ts';

/**
 * RFC 7009: revoking either token of a grant ends both. An unknown or malformed token is no
 * error (the answer is the same, so it tells nothing); nor is a repeat.
 */
export async function revokeAppToken(db: DbOrTrx, clock: Clock, token: string): Promise<void> {
  const column = isSecret(token, ACCESS_PREFIX) ? 'access_hash' : isSecret(token, REFRESH_PREFIX) ? 'refresh_hash' : undefined;
  if (!column) return;
  await db
    .updateTable('oauth_tokens')
    .set({ revoked_at: clock.now() })
    .where(column, '=', sha256(token))
    .where('revoked_at', 'is', null)
    .execute();
}
