import { z } from 'zod';
import {
  checkAuthorization,
  decideAuthorization,
  mcpResource,
  redeemCode,
  refreshAppToken,
  registerClient,
  revokeAppToken,
  revokeReplayedGrant,
  takeCode,
} from '../../domain/oauth/index.ts';
import { AppParams } from '../../schemas/apps.ts';
import {
  AuthorizationRequest,
  ClientRegistration,
  OAUTH_SCOPE,
  RegisteredClient,
  RevocationRequest,
  TokenAnswer,
  TokenRequest,
} from '../../schemas/oauth.ts';
import type { ApiDeps } from '../deps.ts';
import { defineRoute } from '../http/route.ts';

// OAuth 2.1 for MCP hosts (spec Authentication 12): the platform is the authorization server of
// every app's MCP endpoint. Metadata, registration, token and revocation need no credential and
// answer in the OAuth shapes (not the envelope); the authorization page is /oauth/authorize.

// Browser-based hosts (an MCP inspector page) call these from their own origin; no cookie is involved.
const OAUTH = { auth: 'none', envelope: false, errorFormat: 'oauth', tags: ['oauth'], cors: {} } as {
  auth: 'none';
  envelope: false;
  errorFormat: 'oauth';
  tags: string[];
  cors: object;
};
const AUTHORIZATION_PAGE = '/oauth/authorize';
const TOKEN_PATH = '/api/v1/oauth/token';

const AuthorizationServerMetadata = z.record(z.string(), z.unknown()).meta({ id: 'OAuthAuthorizationServer' });

function authorizationServerMetadata(deps: ApiDeps) {
  const base = deps.addresses().baseUrl;
  return {
    issuer: base,
    authorization_endpoint: `${base}${AUTHORIZATION_PAGE}`,
    token_endpoint: `${base}${TOKEN_PATH}`,
    registration_endpoint: `${base}/api/v1/oauth/register`,
    revocation_endpoint: `${base}/api/v1/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [OAUTH_SCOPE],
    authorization_response_iss_parameter_supported: true,
  };
}

export const authorizationServerRoute = defineRoute({
  ...OAUTH,
  method: 'get',
  path: '/.well-known/oauth-authorization-server',
  operationId: 'getOAuthAuthorizationServer',
  summary: 'OAuth 2.1 authorization-server metadata (RFC 8414)',
  response: { status: 200, description: 'The metadata.', schema: AuthorizationServerMetadata },
  handler: async ({ deps }) => ({ data: authorizationServerMetadata(deps) }),
});

export const protectedResourceRoute = defineRoute({
  ...OAUTH,
  method: 'get',
  path: '/.well-known/oauth-protected-resource/api/v1/developer/apps/{namespace}/{slug}/mcp',
  operationId: 'getMcpProtectedResource',
  summary: 'Protected-resource metadata (RFC 9728) of an app’s MCP endpoint: its authorization server',
  description: 'The 401 of the MCP endpoint points here (`WWW-Authenticate: Bearer resource_metadata=…`).',
  params: AppParams,
  response: { status: 200, description: 'The metadata.', schema: AuthorizationServerMetadata },
  handler: async ({ deps, params }) => ({
    data: {
      resource: mcpResource(deps.addresses(), params),
      authorization_servers: [deps.addresses().baseUrl],
      bearer_methods_supported: ['header'],
      scopes_supported: [OAUTH_SCOPE],
    },
  }),
});

export const registerClientRoute = defineRoute({
  ...OAUTH,
  method: 'post',
  path: '/api/v1/oauth/register',
  operationId: 'registerOAuthClient',
  summary: 'Dynamic client registration (RFC 7591) of a public client (an MCP host)',
  description:
    'Redirect addresses: https, http on 127.0.0.1, [::1] or localhost, or a reverse-domain private scheme. No client secret: the ' +
    'code grant requires PKCE S256.',
  rateLimit: { perMinute: 20 },
  write: true,
  body: ClientRegistration,
  response: { status: 201, description: 'The registered client.', schema: RegisteredClient },
  errors: ['invalid_payload', 'malformed_json', 'rate_limited'],
  handler: async ({ db, deps, body }) => ({ data: await registerClient(db, deps.clock, body) }),
});

export const tokenRoute = defineRoute({
  ...OAUTH,
  method: 'post',
  path: TOKEN_PATH,
  operationId: 'issueOAuthToken',
  summary: 'Token endpoint: authorization_code (with PKCE) and refresh_token grants',
  description:
    'The access token `svc-ot-…` (1 hour) is the person’s member-level credential for the MCP endpoint of the one app they ' +
    'approved (its audience; no other route accepts it); the refresh token `svc-or-…` is rotated on every use and lives 30 days ' +
    'from the authorization, not extended by refreshes. Replaying a rotated refresh token revokes the grant (`invalid_grant`). ' +
    'A refresh checks the person’s access to the app again. `resource`, when sent, must be that app’s MCP address ' +
    '(`invalid_target`). Both tokens are stored as hashes only.',
  rateLimit: { perMinute: 60 },
  write: true,
  textBody: 'application/x-www-form-urlencoded',
  body: TokenRequest,
  response: { status: 200, description: 'New tokens.', schema: TokenAnswer },
  errors: ['invalid_payload', 'rate_limited'],
  // Before the transaction, so they stick even when the request fails: the code is taken (gone
  // after its first redeem), and a replayed refresh token revokes its grant.
  prepare: async ({ deps, body, dryRun }) =>
    body.grant_type === 'authorization_code'
      ? { taken: await takeCode(deps.db, body.code, { dryRun }) }
      : { replayed: await revokeReplayedGrant(deps, body.refresh_token, { dryRun }) },
  async handler({ db, deps, body, prepared }) {
    const pair =
      body.grant_type === 'authorization_code'
        ? await redeemCode(deps, db, 'taken' in prepared ? prepared.taken : undefined, body)
        : await refreshAppToken(deps, db, body, 'replayed' in prepared && prepared.replayed === true);
    const data = { ...pair, token_type: 'Bearer' as const, scope: OAUTH_SCOPE };
    return { data, plan: { token_type: 'Bearer', scope: OAUTH_SCOPE } };
  },
});

export const revokeTokenRoute = defineRoute({
  ...OAUTH,
  method: 'post',
  path: '/api/v1/oauth/revoke',
  operationId: 'revokeOAuthToken',
  summary: 'Token revocation (RFC 7009): either token of a grant ends both',
  rateLimit: { perMinute: 60 },
  write: true,
  textBody: 'application/x-www-form-urlencoded',
  body: RevocationRequest,
  response: { status: 200, description: 'Revoked (also for unknown tokens).', schema: z.object({}) },
  errors: ['invalid_payload', 'rate_limited'],
  async handler({ db, deps, body }) {
    await revokeAppToken(db, deps.clock, body.token);
    return { data: {} };
  },
});

export const describeAuthorizationRoute = defineRoute({
  method: 'get',
  path: '/api/v1/oauth/authorization',
  operationId: 'describeOAuthAuthorization',
  summary: 'For the authorization page: the host asking, the app and the signed-in person (checks the request)',
  tags: ['oauth'],
  auth: 'credential',
  query: AuthorizationRequest,
  response: {
    status: 200,
    description: 'What the person is asked to approve.',
    schema: z.object({
      client: z.object({ id: z.string(), name: z.string(), redirectUri: z.string() }),
      app: z.object({ namespace: z.string(), slug: z.string(), title: z.string() }),
      role: z.string(),
      account: z.object({ username: z.string() }),
    }),
  },
  errors: ['invalid_session', 'invalid_payload', 'forbidden', 'app_not_found'],
  async handler({ deps, principal, query }) {
    const { app, client, role, account } = await checkAuthorization(deps, principal, query);
    return { data: { client, role, account, app: { namespace: app.namespace, slug: app.slug, title: app.title } } };
  },
});

export const decideAuthorizationRoute = defineRoute({
  method: 'post',
  path: '/api/v1/oauth/authorization',
  operationId: 'decideOAuthAuthorization',
  summary: 'The person approves or denies the host: the address to send the browser to (with a code, or access_denied)',
  tags: ['oauth'],
  auth: 'credential',
  write: true,
  body: AuthorizationRequest.extend({ decision: z.enum(['approve', 'deny']) }),
  response: { status: 200, description: 'Where the browser goes next.', schema: z.object({ redirectTo: z.string() }) },
  errors: ['invalid_session', 'forbidden', 'invalid_payload', 'app_not_found'],
  async handler({ deps, db, principal, body }) {
    const { decision, ...request } = body;
    const answer = await decideAuthorization(deps, db, principal, request, decision);
    // A dry run never shows a code that was rolled back.
    return { data: answer, plan: { decision } };
  },
});

export const oauthRoutes = [
  authorizationServerRoute,
  protectedResourceRoute,
  registerClientRoute,
  tokenRoute,
  revokeTokenRoute,
  describeAuthorizationRoute,
  decideAuthorizationRoute,
];
