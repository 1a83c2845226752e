import { z } from 'zod';

// OAuth 2.1 for MCP hosts (spec Authentication 12): authorization-server metadata (RFC 8414),
// protected-resource metadata (RFC 9728), dynamic client registration (RFC 7591), the
// authorization code grant with PKCE S256 only, refresh, revocation (RFC 7009). Field names are
// the RFCs' (snake_case).

export const OAUTH_SCOPE = 'app';
/** PKCE verifiers are 43 to 128 characters, so are their S256 challenges' base64url forms (43). */
const Challenge = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be the base64url SHA-256 of the verifier (43 characters)');
const Uri = z.string().min(1).max(2000);

/** RFC 7591 client metadata: the fields hosts send; a field outside it is refused with its path. */
export const ClientRegistration = z.strictObject({
  redirect_uris: z.array(Uri).min(1).max(10),
  client_name: z.string().min(1).max(100).optional(),
  token_endpoint_auth_method: z.literal('none').optional().meta({ description: 'Public clients only: PKCE proves the client.' }),
  grant_types: z
    .array(z.enum(['authorization_code', 'refresh_token']))
    .max(2)
    .optional(),
  response_types: z.array(z.literal('code')).max(1).optional(),
  scope: z.string().max(200).optional(),
  client_uri: Uri.optional(),
  logo_uri: Uri.optional(),
  tos_uri: Uri.optional(),
  policy_uri: Uri.optional(),
  contacts: z.array(z.string().max(254)).max(10).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(100).optional(),
});
export type ClientRegistration = z.infer<typeof ClientRegistration>;

export const RegisteredClient = z
  .object({
    client_id: z.string(),
    client_id_issued_at: z.number().int(),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
  })
  .catchall(z.unknown())
  .meta({ id: 'OAuthClient' });

/** The query of the authorization page, and the body of its decision. */
export const AuthorizationRequest = z.strictObject({
  response_type: z.literal('code'),
  client_id: z.string().min(1).max(100),
  redirect_uri: Uri,
  code_challenge: Challenge,
  code_challenge_method: z.literal('S256'),
  resource: Uri.meta({ description: 'RFC 8707: the app’s MCP address; the token is for that app only.' }),
  state: z.string().max(500).optional(),
  scope: z.string().max(200).optional(),
});
export type AuthorizationRequest = z.infer<typeof AuthorizationRequest>;

export const TokenRequest = z.discriminatedUnion('grant_type', [
  z.strictObject({
    grant_type: z.literal('authorization_code'),
    code: z.string().min(1).max(200),
    redirect_uri: Uri,
    client_id: z.string().min(1).max(100),
    code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be a PKCE verifier (RFC 7636)'),
    resource: Uri.optional(),
  }),
  z.strictObject({
    grant_type: z.literal('refresh_token'),
    refresh_token: z.string().min(1).max(200),
    client_id: z.string().min(1).max(100),
    resource: Uri.optional(),
    scope: z.string().max(200).optional(),
  }),
]);

export const TokenAnswer = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  scope: z.string(),
});

export const RevocationRequest = z.strictObject({
  token: z.string().min(1).max(200),
  token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
  client_id: z.string().min(1).max(100).optional(),
});
