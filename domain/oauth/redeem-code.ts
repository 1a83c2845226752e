import { createHash } from 'node:crypto';
import type { DbOrTrx } from '../db/database.ts';
import type { Clock } from '../deps.ts';
import { equalHashes, sha256 } from '../security/random.ts';
import { issueTokenPair, oauthError } from './repository.ts';

const invalidGrant = (message: string) => oauthError('invalid_payload', 'invalid_grant', message);

/**
 * Takes an authorization code out of the store: run on the pool before the token's transaction,
 * so the code is gone after its first redeem whatever follows (a dry run only looks).
 */
export async function takeCode(db: DbOrTrx, code: string, opts: { dryRun: boolean }) {
  const hash = sha256(code);
  const row = opts.dryRun
    ? await db.selectFrom('oauth_codes').selectAll().where('hash', '=', hash).executeTakeFirst()
    : await db.deleteFrom('oauth_codes').where('hash', '=', hash).returningAll().executeTakeFirst();
  return row && equalHashes(row.hash, hash) ? row : undefined;
}

/**
 * The token endpoint's authorization_code grant with a taken code: it must be the client's, for
 * the same redirect address, unexpired, and the verifier must hash to the challenge (PKCE S256).
 * Answers a new app token pair.
 */
export async function redeemCode(
  db: DbOrTrx,
  clock: Clock,
  taken: Awaited<ReturnType<typeof takeCode>>,
  input: { client_id: string; redirect_uri: string; code_verifier: string },
) {
  if (!taken) throw invalidGrant('The authorization code is unknown or was used already.');
  if (taken.expires_at.getTime() <= clock.now().getTime()) throw invalidGrant('The authorization code has expired; authorize again.');
  if (taken.client_id !== input.client_id || taken.redirect_uri !== input.redirect_uri) {
    throw invalidGrant('The authorization code was issued to another client or redirect address.');
  }
  const challenge = createHash('sha256').update(input.code_verifier).digest('base64url');
  if (!equalHashes(Buffer.from(challenge), Buffer.from(taken.code_challenge)))
    throw invalidGrant('code_verifier does not match the challenge.');
  return issueTokenPair(db, clock, { clientId: taken.client_id, accountId: taken.account_id, appId: taken.app_id });
}
