import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../security/index.ts';
import { ACCESS_TTL_MS, newSecret, REFRESH_TTL_MS } from './token-format.ts';

/** An OAuth failure: the service's code for HTTP, and the RFC 6749 `error` the OAuth routes answer with. */
export const oauthError = (
  code: 'invalid_payload' | 'unauthorized' | 'forbidden',
  oauth:
    | 'invalid_request'
    | 'invalid_client'
    | 'invalid_grant'
    | 'invalid_redirect_uri'
    | 'invalid_target'
    | 'invalid_client_metadata'
    | 'invalid_token',
  message: string,
) => new DomainError(code, message, { details: { oauthError: oauth } });

export async function findClient(db: DbOrTrx, clientId: string) {
  return db.selectFrom('oauth_clients').selectAll().where('id', '=', clientId).executeTakeFirst();
}

/**
 * A new access and refresh token for one account, client and app: a new grant, or (with `id`) the
 * rotation of an existing one, whose old pair stops working at once. The refresh token's lifetime
 * is absolute: 30 days from the authorization, never moved by a rotation. `shareId`: the share
 * that admits the person now (null for company access); the tokens end with it.
 */
export async function issueTokenPair(
  db: DbOrTrx,
  clock: Clock,
  grant: { id?: string; clientId: string; accountId: string; appId: string; shareId: string | null },
) {
  const access = newSecret('access');
  const refresh = newSecret('refresh');
  const now = clock.now().getTime();
  const values = {
    access_hash: access.hash,
    refresh_hash: refresh.hash,
    access_expires_at: new Date(now + ACCESS_TTL_MS),
    share_id: grant.shareId,
  };
  if (grant.id) await db.updateTable('oauth_tokens').set(values).where('id', '=', grant.id).execute();
  else {
    await db
      .insertInto('oauth_tokens')
      .values({
        id: newId('otk'),
        client_id: grant.clientId,
        account_id: grant.accountId,
        app_id: grant.appId,
        refresh_expires_at: new Date(now + REFRESH_TTL_MS),
        created_at: new Date(now),
        ...values,
      })
      .execute();
  }
  return { access_token: access.plaintext, refresh_token: refresh.plaintext, expires_in: ACCESS_TTL_MS / 1000 };
}
