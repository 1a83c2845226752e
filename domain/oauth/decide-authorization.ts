import type { AuthorizationRequest } from '../../schemas/oauth.ts';
import { reachApp } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { tokenRole } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { appOfResource } from './mcp-resource.ts';
import { findClient, oauthError } from './repository.ts';
import { CODE_TTL_MS, newSecret } from './token-format.ts';

/**
 * Checks an authorization request for the signed-in person: a registered client, one of its
 * redirect addresses, an MCP address of an app the person may open. Failures here are shown on
 * the page, never sent to the redirect address (which may not be the client's).
 */
export async function checkAuthorization(deps: DomainDeps, principal: Principal, req: AuthorizationRequest) {
  const client = await findClient(deps.db, req.client_id);
  if (!client) throw oauthError('invalid_payload', 'invalid_client', 'This client is not registered; register it again.');
  if (!client.redirect_uris.includes(req.redirect_uri)) {
    throw oauthError('invalid_payload', 'invalid_redirect_uri', 'redirect_uri is not one the client registered.');
  }
  const named = appOfResource(deps.addresses(), req.resource);
  if (!named) throw oauthError('invalid_payload', 'invalid_target', 'resource must be the MCP address of an app of this service.');
  const { app, version, access } = await reachApp(deps, principal, { ...named, channel: 'production' });
  return {
    client: { id: client.id, name: client.name, redirectUri: req.redirect_uri },
    app: { id: app.id, namespace: app.namespace, slug: app.slug, title: version.manifest.title },
    // A token acts at member level at most, whatever the person's role.
    role: tokenRole(access.role),
    account: { username: principal.account.username },
    /** The share that admits the person (null for company access): the tokens will end with it. */
    shareId: access.allowed ? access.viaShare : null,
  };
}

/**
 * The person's answer: approve issues a one-time code (60 seconds, stored as a hash, bound to the
 * client, redirect address, app and PKCE challenge); deny sends access_denied. Either way the
 * answer is the address to send the browser to, with the client's state and our issuer.
 */
export async function decideAuthorization(
  deps: DomainDeps,
  db: DbOrTrx,
  principal: Principal,
  req: AuthorizationRequest,
  decision: 'approve' | 'deny',
): Promise<{ redirectTo: string }> {
  const checked = await checkAuthorization(deps, principal, req);
  const to = new URL(req.redirect_uri);
  if (req.state !== undefined) to.searchParams.set('state', req.state);
  to.searchParams.set('iss', deps.addresses().baseUrl);
  if (decision === 'deny') {
    to.searchParams.set('error', 'access_denied');
    return { redirectTo: to.href };
  }
  const code = newSecret('code');
  await db
    .insertInto('oauth_codes')
    .values({
      hash: code.hash,
      client_id: checked.client.id,
      account_id: principal.account.id,
      app_id: checked.app.id,
      redirect_uri: req.redirect_uri,
      code_challenge: req.code_challenge,
      share_id: checked.shareId,
      expires_at: new Date(deps.clock.now().getTime() + CODE_TTL_MS),
    })
    .execute();
  to.searchParams.set('code', code.plaintext);
  return { redirectTo: to.href };
}
