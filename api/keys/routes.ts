import { z } from 'zod';
import { checkPassword } from '../../domain/accounts/index.ts';
import { DomainError } from '../../domain/errors.ts';
import { createPasswordToken, describeKey, listKeys, revokeKey } from '../../domain/keys/index.ts';
import { CellId, ClientName, IssuedKey, KeyId, KeySummary, Me } from '../../schemas/identity.ts';
import { defineRoute } from '../http/route.ts';

export const meRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/me',
  operationId: 'getMe',
  summary: 'The account, company and role behind the calling key',
  tags: ['keys'],
  auth: 'credential',
  response: { status: 200, description: 'Who the key acts as.', schema: Me },
  errors: ['unauthorized'],
  async handler({ principal }) {
    if (principal.kind !== 'key') throw new DomainError('unauthorized');
    return { data: describeKey(principal) };
  },
});

export const listKeysRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/keys',
  operationId: 'listKeys',
  summary: "The caller's keys that are not revoked (prefix only)",
  tags: ['keys'],
  auth: 'credential',
  response: { status: 200, description: 'Keys, newest first.', schema: z.object({ keys: z.array(KeySummary) }) },
  errors: ['unauthorized', 'invalid_session'],
  handler: async ({ principal, db }) => ({ data: { keys: await listKeys(db, principal) } }),
});

export const revokeKeyRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/developer/keys/{keyId}',
  operationId: 'revokeKey',
  summary: "Revoke one of the caller's keys (idempotent)",
  tags: ['keys'],
  auth: 'credential',
  write: true,
  params: z.object({ keyId: KeyId }),
  response: {
    status: 200,
    description: 'The key is revoked (also when it already was).',
    schema: z.object({ keyId: z.string(), revoked: z.literal(true), alreadyRevoked: z.boolean() }),
  },
  errors: ['unauthorized', 'invalid_session', 'invalid_path', 'agent_key_not_found', 'forbidden'],
  handler: async ({ principal, params, db, ip }) => ({ data: await revokeKey(db, principal, params.keyId, ip) }),
});

export const passwordTokenRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/password-tokens',
  operationId: 'createPasswordToken',
  summary: 'Terminal login: exchange login and password for a developer key',
  description:
    'Same password check, lockout (5 failures lock the account 15 minutes) and rate limits as web sign-in. ' +
    'A dry run checks the credentials and answers with the company the key would act for; no key is issued.',
  tags: ['keys'],
  auth: 'none',
  // Checked before the body is read; the password check's own buckets are tighter.
  rateLimit: { perMinute: 60 },
  write: true,
  body: z.strictObject({
    login: z.string().min(1).max(254),
    password: z.string().min(1).max(256),
    cellId: CellId.optional(),
    clientName: ClientName.optional(),
  }),
  response: { status: 201, description: 'The key, shown only here.', schema: IssuedKey },
  errors: [
    'invalid_credentials',
    'email_verification_required',
    'password_change_required',
    'company_required',
    'forbidden',
    'rate_limited',
  ],
  prepare: ({ deps, body, ip }) => checkPassword(deps, { login: body.login, password: body.password, ip }),
  async handler({ db, body, ip, prepared: account }) {
    const { issued, plan } = await createPasswordToken(db, account, body, ip);
    return { data: issued, plan };
  },
});

export const keyRoutes = [passwordTokenRoute, meRoute, listKeysRoute, revokeKeyRoute];
