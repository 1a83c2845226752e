import { createHash } from 'node:crypto';
import type { DbOrTrx } from '../db/database.ts';
import type { Clock } from '../deps.ts';
import { equalHashes, sha256 } from '../security/random.ts';
import { issueTokenPair, oauthError } from './repository.ts';

const invalidGrant = (message: string) => oauthError('invalid_payload', 'invalid_grant', message);

/**
 * The token endpoint's authorization_code grant: the code is deleted by this first redeem
 * whatever follows; it must be the client's, for the same redirect address, unexpired, and the
 * verifier must hash to the challenge (PKCE S256). Answers a new app token pair.
 */
export async function redeemCode(
  db: DbOrTrx,
  clock: Clock,
  input: { code: string; client_id: string; redirect_uri: string; code_verifier: string },
) {
  const hash = sha256(input.code);
  const row = await db.deleteFrom('oauth_codes').where('hash', '=', hash).returningAll().executeTakeFirst();
  if (!row || !equalHashes(row.hash, hash)) throw invalidGrant('The authorization code is unknown or was used already.');
  if (row.expires_at.getTime() <= clock.now().getTime()) throw invalidGrant('The authorization code has expired; authorize again.');
  if (row.client_id !== input.client_id || row.redirect_uri !== input.redirect_uri) {
    throw invalidGrant('The authorization code was issued to another client or redirect address.');
  }
  const challenge = createHash('sha256').update(input.code_verifier).digest('base64url');
  if (!equalHashes(Buffer.from(challenge), Buffer.from(row.code_challenge)))
    throw invalidGrant('code_verifier does not match the challenge.');
  return issueTokenPair(db, clock, { clientId: row.client_id, accountId: row.account_id, appId: row.app_id });
}
