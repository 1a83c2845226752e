import { accessToApp, currentVersionId } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { equalHashes, sha256 } from '../security/index.ts';
import { appTokenPrincipal } from './authenticate-app-token.ts';
import { assertResourceOfApp } from './redeem-code.ts';
import { issueTokenPair, oauthError } from './repository.ts';
import { isSecret, REFRESH_PREFIX } from './token-format.ts';

const invalidGrant = (message: string) => oauthError('invalid_payload', 'invalid_grant', message);
const UNKNOWN = 'The refresh token is unknown, revoked or expired; authorize again.';

/**
 * Reuse detection (RFC 9700 4.14), run on the pool before the token's transaction so that it
 * sticks although the request fails: a refresh token that was already rotated away means two
 * parties hold the grant, so the whole grant (its current pair too) is revoked. Answers whether
 * the token was such a replay (a dry run only looks).
 */
export async function revokeReplayedGrant(deps: Pick<DomainDeps, 'db' | 'clock'>, refreshToken: string, opts: { dryRun: boolean }) {
  if (!isSecret(refreshToken, REFRESH_PREFIX)) return false;
  const used = await deps.db
    .selectFrom('oauth_used_refresh_tokens')
    .select(['hash', 'token_id'])
    .where('hash', '=', sha256(refreshToken))
    .executeTakeFirst();
  if (!used || !equalHashes(used.hash, sha256(refreshToken))) return false;
  if (!opts.dryRun) {
    await deps.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: deps.clock.now() })
      .where('id', '=', used.token_id)
      .where('revoked_at', 'is', null)
      .execute();
  }
  return true;
}

/**
 * The refresh_token grant: a live refresh token of this client gets a new pair, and the old pair
 * stops working (rotation, OAuth 2.1 for public clients); the old refresh token is remembered, so
 * a replay is caught (`revokeReplayedGrant`). The refresh token's 30 days run from the
 * authorization (absolute). The person's access to the app is checked again as at the
 * authorization (account, licenses, shares, grants), and the share that admits now is recorded.
 */
export async function refreshAppToken(
  deps: DomainDeps,
  db: DbOrTrx,
  input: { refresh_token: string; client_id: string; resource?: string | undefined },
  replayed: boolean,
) {
  if (replayed) throw invalidGrant('The refresh token was used already: the grant is revoked; authorize again.');
  if (!isSecret(input.refresh_token, REFRESH_PREFIX)) throw invalidGrant(UNKNOWN);
  const hash = sha256(input.refresh_token);
  const row = await db
    .selectFrom('oauth_tokens as t')
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .innerJoin('apps as p', 'p.id', 't.app_id')
    .select([
      't.id',
      't.refresh_hash',
      't.client_id',
      't.account_id',
      't.app_id',
      't.share_id',
      't.access_expires_at',
      't.refresh_expires_at',
      't.revoked_at',
      'a.username',
      'a.email',
      'a.status',
      'a.platform_staff',
      'p.namespace',
      'p.slug',
      'p.company_id',
    ])
    .where('t.refresh_hash', '=', hash)
    .forUpdate('t')
    .executeTakeFirst();
  if (!row || !equalHashes(row.refresh_hash, hash) || row.revoked_at || row.status !== 'active') throw invalidGrant(UNKNOWN);
  if (row.refresh_expires_at.getTime() <= deps.clock.now().getTime() || row.client_id !== input.client_id) throw invalidGrant(UNKNOWN);
  await assertResourceOfApp(deps, db, row.app_id, input.resource);
  const versionId = await currentVersionId(db, row.app_id, 'production');
  if (!versionId) throw invalidGrant('The app has no production version.');
  const principal = appTokenPrincipal({ ...row, platformStaff: row.platform_staff }, versionId);
  const { access } = await accessToApp(deps, principal, { namespace: row.namespace, slug: row.slug, channel: 'production' });
  if (!access.allowed) throw invalidGrant(`${access.message} Authorize again once you have access.`);
  await db.insertInto('oauth_used_refresh_tokens').values({ hash, token_id: row.id }).execute();
  return issueTokenPair(db, deps.clock, {
    id: row.id,
    clientId: row.client_id,
    accountId: row.account_id,
    appId: row.app_id,
    shareId: access.viaShare,
  });
}
