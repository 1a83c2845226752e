import { z } from 'zod';
import { ApiError } from '../http/api-error.ts';
import { defineRoute } from '../http/route.ts';
import { checkPassword } from '../accounts/password-check.ts';
import { createPasswordToken } from './create-password-token.ts';
import { CellId, ClientName, CompanySummary, IssuedKeyResponse, KeySummary, Role } from './schemas.ts';

const Me = z
  .object({
    account: z.object({ id: z.string(), username: z.string(), email: z.string(), platformStaff: z.boolean() }),
    company: CompanySummary,
    role: Role,
    keyPrefix: z.string(),
    writableNamespaces: z.array(z.string()).meta({ description: 'Empty for members.' }),
  })
  .meta({ id: 'Me' });

export const meRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/me',
  operationId: 'getMe',
  summary: 'The account, company and role behind the calling key',
  tags: ['keys'],
  auth: { accepts: ['key'] },
  response: { status: 200, description: 'Who the key acts as.', schema: Me },
  errors: ['unauthorized'],
  async handler({ principal }) {
    if (principal.kind !== 'key') throw new ApiError('unauthorized', 401);
    const writable = principal.role === 'developer' ? [principal.company.cellId, ...(principal.account.platformStaff ? ['public'] : [])] : [];
    return {
      data: {
        account: principal.account,
        company: { cellId: principal.company.cellId, name: principal.company.name },
        role: principal.role,
        keyPrefix: principal.key.displayPrefix,
        writableNamespaces: writable,
      },
    };
  },
});

export const listKeysRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/keys',
  operationId: 'listKeys',
  summary: "The caller's keys that are not revoked (prefix only)",
  tags: ['keys'],
  auth: { accepts: ['key', 'session'] },
  response: { status: 200, description: 'Keys, newest first.', schema: z.object({ keys: z.array(KeySummary) }) },
  errors: ['unauthorized', 'invalid_session'],
  async handler({ principal, db }) {
    const rows = await db
      .selectFrom('developer_keys as k')
      .innerJoin('companies as c', 'c.id', 'k.company_id')
      .select(['k.id', 'k.display_prefix', 'k.role', 'k.client_name', 'k.created_at', 'k.last_used_at', 'c.cell_id', 'c.name'])
      .where('k.account_id', '=', principal.account.id)
      .where('k.revoked_at', 'is', null)
      .orderBy('k.created_at', 'desc')
      .orderBy('k.id')
      .execute();
    const currentKeyId = principal.kind === 'key' ? principal.key.id : undefined;
    return {
      data: {
        keys: rows.map((r) => ({
          keyId: r.id,
          prefix: r.display_prefix,
          role: r.role,
          clientName: r.client_name,
          company: { cellId: r.cell_id, name: r.name },
          createdAt: r.created_at.toISOString(),
          lastUsedAt: r.last_used_at?.toISOString() ?? null,
          current: r.id === currentKeyId,
        })),
      },
    };
  },
});

export const revokeKeyRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/developer/keys/{keyId}',
  operationId: 'revokeKey',
  summary: "Revoke one of the caller's keys (idempotent)",
  tags: ['keys'],
  auth: { accepts: ['key', 'session'] },
  write: true,
  params: z.object({ keyId: z.string().regex(/^key_[0-9A-Za-z]{10,40}$/, 'must be a key id (key_…)') }),
  response: {
    status: 200,
    description: 'The key is revoked (also when it already was).',
    schema: z.object({ keyId: z.string(), revoked: z.literal(true), alreadyRevoked: z.boolean() }),
  },
  errors: ['unauthorized', 'invalid_session', 'invalid_path', 'agent_key_not_found', 'forbidden'],
  async handler({ principal, params, db }) {
    const key = await db.selectFrom('developer_keys').select(['account_id', 'revoked_at']).where('id', '=', params.keyId).forUpdate().executeTakeFirst();
    if (!key) throw new ApiError('agent_key_not_found', 404, { keyId: params.keyId });
    if (key.account_id !== principal.account.id) {
      throw new ApiError('forbidden', 403, { keyId: params.keyId }, 'That key belongs to another account.');
    }
    if (!key.revoked_at) await db.updateTable('developer_keys').set({ revoked_at: new Date() }).where('id', '=', params.keyId).execute();
    return { data: { keyId: params.keyId, revoked: true as const, alreadyRevoked: key.revoked_at !== null } };
  },
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
  write: true,
  body: z.strictObject({
    login: z.string().min(1).max(254),
    password: z.string().min(1).max(256),
    cellId: CellId.optional(),
    clientName: ClientName.optional(),
  }),
  response: { status: 201, description: 'The key, shown only here.', schema: IssuedKeyResponse },
  errors: ['invalid_credentials', 'email_verification_required', 'password_change_required', 'company_required', 'forbidden', 'rate_limited'],
  prepare: ({ deps, body, ip }) => checkPassword(deps, { login: body.login, password: body.password, ip }),
  async handler({ db, body, prepared: account }) {
    const { issued, plan } = await createPasswordToken(db, account, body);
    return { data: issued, plan };
  },
});
