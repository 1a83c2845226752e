import { createHash } from 'node:crypto';
import type { DbOrTrx } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { equalHashes, sha256 } from '../security/index.ts';
import { appOfResource } from './mcp-resource.ts';
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
 * RFC 8707 2: a `resource` sent to the token endpoint must be the MCP address of the grant's app
 * (`invalid_target` otherwise): a token is never minted for another audience than approved.
 */
export async function assertResourceOfApp(
  deps: Pick<DomainDeps, 'addresses'>,
  db: DbOrTrx,
  appId: string,
  resource: string | undefined,
): Promise<void> {
  if (resource === undefined) return;
  const app = await db.selectFrom('apps').select(['namespace', 'slug']).where('id', '=', appId).executeTakeFirstOrThrow();
  const named = appOfResource(deps.addresses(), resource);
  if (named?.namespace !== app.namespace || named.slug !== app.slug) {
    throw oauthError(
      'invalid_payload',
      'invalid_target',
      `resource must be the MCP address of ${app.namespace}/${app.slug}, the app approved.`,
    );
  }
}

/**
 * The token endpoint's authorization_code grant with a taken code: it must be the client's, for
 * the same redirect address, unexpired, the verifier must hash to the challenge (PKCE S256), and a
 * `resource`, when sent, must name the code's app. Answers a new app token pair.
 */
export async function redeemCode(
  deps: Pick<DomainDeps, 'clock' | 'addresses'>,
  db: DbOrTrx,
  taken: Awaited<ReturnType<typeof takeCode>>,
  input: { client_id: string; redirect_uri: string; code_verifier: string; resource?: string | undefined },
) {
  if (!taken) throw invalidGrant('The authorization code is unknown or was used already.');
  if (taken.expires_at.getTime() <= deps.clock.now().getTime()) throw invalidGrant('The authorization code has expired; authorize again.');
  if (taken.client_id !== input.client_id || taken.redirect_uri !== input.redirect_uri) {
    throw invalidGrant('The authorization code was issued to another client or redirect address.');
  }
  const challenge = createHash('sha256').update(input.code_verifier).digest('base64url');
  if (!equalHashes(Buffer.from(challenge), Buffer.from(taken.code_challenge)))
    throw invalidGrant('code_verifier does not match the challenge.');
  await assertResourceOfApp(deps, db, taken.app_id, input.resource);
  return issueTokenPair(db, deps.clock, {
    clientId: taken.client_id,
    accountId: taken.account_id,
    appId: taken.app_id,
    shareId: taken.share_id,
  });
}
