import type { DbOrTrx } from '../db/database.ts';
import type { Clock } from '../deps.ts';
import { equalHashes, sha256 } from '../security/random.ts';
import { issueTokenPair, oauthError } from './repository.ts';
import { isSecret, REFRESH_PREFIX } from './token-format.ts';

/**
 * The refresh_token grant: a live refresh token of this client gets a new pair, and the old pair
 * stops working (rotation, OAuth 2.1 for public clients). The account must still be active.
 */
export async function refreshAppToken(db: DbOrTrx, clock: Clock, input: { refresh_token: string; client_id: string }) {
  const invalid = oauthError('invalid_payload', 'invalid_grant', 'The refresh token is unknown, revoked or expired; authorize again.');
  if (!isSecret(input.refresh_token, REFRESH_PREFIX)) throw invalid;
  const hash = sha256(input.refresh_token);
  const row = await db
    .selectFrom('oauth_tokens as t')
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .select(['t.id', 't.refresh_hash', 't.client_id', 't.account_id', 't.app_id', 't.refresh_expires_at', 't.revoked_at', 'a.status'])
    .where('t.refresh_hash', '=', hash)
    .forUpdate()
    .executeTakeFirst();
  if (!row || !equalHashes(row.refresh_hash, hash) || row.revoked_at || row.status !== 'active') throw invalid;
  if (row.refresh_expires_at.getTime() <= clock.now().getTime() || row.client_id !== input.client_id) throw invalid;
  return issueTokenPair(db, clock, { id: row.id, clientId: row.client_id, accountId: row.account_id, appId: row.app_id });
}
