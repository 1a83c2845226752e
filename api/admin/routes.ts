import { sql } from 'kysely';
import { z } from 'zod';
import { accountView } from '../accounts/account-view.ts';
import { createAccount } from '../accounts/create-account.ts';
import { AccountView, CreateAccountInput, LicenseInput, NewPassword } from '../accounts/schemas.ts';
import type { AuthRequirement } from '../auth/principal.ts';
import { createCompany } from '../companies/create-company.ts';
import { findCompany } from '../companies/find-company.ts';
import { setLicense } from '../companies/set-license.ts';
import { problem } from '../../schemas/problems.ts';
import { ApiError } from '../http/api-error.ts';
import { defineRoute } from '../http/route.ts';
import { CellId, Role } from '../keys/schemas.ts';
import { hashPassword } from '../security/password-hash.ts';

// Operator-only endpoints: platform staff, by key or by web session.
const OPERATOR = { accepts: ['key', 'session'], operator: true } as const satisfies AuthRequirement;
const ADMIN_ERRORS = ['unauthorized', 'forbidden'] as const;
const AccountId = z.object({ id: z.string().regex(/^acc_[0-9A-Za-z]{10,40}$/, 'must be an account id (acc_…)') });

const Organization = z
  .object({
    id: z.string(),
    cellId: z.string(),
    name: z.string(),
    createdAt: z.iso.datetime(),
    members: z.array(z.object({ accountId: z.string(), username: z.string(), role: Role, admin: z.boolean() })),
  })
  .meta({ id: 'Organization' });

async function organizationView(db: Parameters<typeof findCompany>[0], ref: string): Promise<z.input<typeof Organization>> {
  const c = await findCompany(db, ref);
  const members = await db
    .selectFrom('licenses as l')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .select(['a.id', 'a.username', 'l.role', 'l.admin'])
    .where('l.company_id', '=', c.id)
    .orderBy('a.username')
    .execute();
  return {
    id: c.id,
    cellId: c.cell_id,
    name: c.name,
    createdAt: c.created_at.toISOString(),
    members: members.map((m) => ({ accountId: m.id, username: m.username, role: m.role, admin: m.admin })),
  };
}

export const createOrganizationRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/organizations',
  operationId: 'adminCreateOrganization',
  summary: 'Create a company (operators)',
  tags: ['admin'],
  auth: OPERATOR,
  write: true,
  body: z.strictObject({ cellId: CellId, name: z.string().trim().min(1).max(120) }),
  response: { status: 201, description: 'The new organization.', schema: Organization },
  errors: [...ADMIN_ERRORS, 'conflict'],
  async handler({ db, body }) {
    const company = await createCompany(db, body);
    return { data: await organizationView(db, company.cell_id) };
  },
});

export const getOrganizationRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/organizations/{rid}',
  operationId: 'adminGetOrganization',
  summary: 'One company and its members (operators); rid is the cellId or the organization id',
  tags: ['admin'],
  auth: OPERATOR,
  params: z.object({ rid: z.union([CellId, z.string().regex(/^org_[0-9A-Za-z_]{3,40}$/)]) }),
  response: { status: 200, description: 'The organization.', schema: Organization },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'organization_not_found'],
  async handler({ db, params }) {
    return { data: await organizationView(db, params.rid) };
  },
});

export const createUserRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/users',
  operationId: 'adminCreateUser',
  summary: 'Create an account, optionally with licenses (operators)',
  tags: ['admin'],
  auth: OPERATOR,
  write: true,
  body: CreateAccountInput,
  response: { status: 201, description: 'The new account.', schema: AccountView },
  errors: [...ADMIN_ERRORS, 'conflict', 'organization_not_found'],
  async handler({ db, body, deps }) {
    const id = await createAccount(db, deps.passwordHashing, body);
    return { data: await accountView(db, id) };
  },
});

export const listUsersRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/users',
  operationId: 'adminListUsers',
  summary: 'Accounts by username, optionally filtered (operators)',
  tags: ['admin'],
  auth: OPERATOR,
  query: z.strictObject({
    q: z.string().max(254).optional().meta({ description: 'Part of a username or email.' }),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    after: z.string().max(64).optional().meta({ description: 'Continue after this username (the previous page’s `next`).' }),
  }),
  response: {
    status: 200,
    description: 'One page of accounts.',
    schema: z.object({ users: z.array(AccountView), next: z.string().nullable() }),
  },
  errors: [...ADMIN_ERRORS],
  async handler({ db, query }) {
    let q = db.selectFrom('accounts').select(['id', 'username']).orderBy(sql`lower(username)`).limit(query.limit + 1);
    if (query.q) {
      const pattern = `%${query.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) => eb.or([eb(sql`lower(username)`, 'like', pattern), eb(sql`lower(email)`, 'like', pattern)]));
    }
    if (query.after) q = q.where(sql`lower(username)`, '>', query.after.toLowerCase());
    const rows = await q.execute();
    const page = rows.slice(0, query.limit);
    return {
      data: {
        users: await Promise.all(page.map((r) => accountView(db, r.id))),
        next: rows.length > query.limit ? page.at(-1)!.username : null,
      },
    };
  },
});

export const updateUserRoute = defineRoute({
  method: 'patch',
  path: '/api/v1/admin/users/{id}',
  operationId: 'adminUpdateUser',
  summary: 'Disable or re-enable an account, set flags or a new password (operators)',
  description: 'Disabling ends the account’s web sessions and its keys stop working at once; a new password ends its web sessions.',
  tags: ['admin'],
  auth: OPERATOR,
  write: true,
  params: AccountId,
  body: z
    .strictObject({
      status: z.enum(['active', 'disabled']).optional(),
      password: NewPassword.optional(),
      mustChangePassword: z.boolean().optional(),
      emailVerified: z.boolean().optional(),
    })
    .refine((b) => Object.keys(b).length > 0, 'name at least one field to change'),
  response: { status: 200, description: 'The account after the change.', schema: AccountView },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'user_not_found', 'invalid_payload'],
  async handler({ db, params, body, deps, principal }) {
    const current = await db.selectFrom('accounts').select(['password_hash']).where('id', '=', params.id).forUpdate().executeTakeFirst();
    if (!current) throw new ApiError('user_not_found', 404, { id: params.id });
    if (body.status === 'disabled' && params.id === principal.account.id) {
      throw new ApiError('forbidden', 403, undefined, 'Operators cannot disable their own account.');
    }
    const passwordHash = body.password ? await hashPassword(body.password, deps.passwordHashing) : current.password_hash;
    if (body.status === 'active' && !passwordHash) {
      throw new ApiError('invalid_payload', 400, { problems: [problem('password', 'required', 'a pending account needs a password to become active')] });
    }
    await db
      .updateTable('accounts')
      .set({
        ...(body.status ? { status: body.status } : {}),
        ...(body.password ? { password_hash: passwordHash, failed_logins: 0, locked_until: null } : {}),
        ...(body.mustChangePassword !== undefined ? { must_change_password: body.mustChangePassword } : {}),
        ...(body.emailVerified !== undefined ? { email_verified: body.emailVerified } : {}),
      })
      .where('id', '=', params.id)
      .execute();
    // A disabled account, or one whose password an operator reset (say, after a compromise), keeps no session.
    if (body.status === 'disabled' || body.password) await db.deleteFrom('web_sessions').where('account_id', '=', params.id).execute();
    return { data: await accountView(db, params.id) };
  },
});

const MembershipParams = AccountId.extend({ cellId: CellId });

export const putMembershipRoute = defineRoute({
  method: 'put',
  path: '/api/v1/admin/users/{id}/organizations/{cellId}',
  operationId: 'adminPutMembership',
  summary: 'Grant or change an account’s license in a company (operators)',
  tags: ['admin'],
  auth: OPERATOR,
  write: true,
  params: MembershipParams,
  body: LicenseInput,
  response: { status: 200, description: 'The account with its licenses.', schema: AccountView.extend({ created: z.boolean() }) },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'user_not_found', 'organization_not_found'],
  async handler({ db, params, body }) {
    const account = await accountView(db, params.id);
    const company = await findCompany(db, params.cellId);
    const created = await setLicense(db, { accountId: account.id, companyId: company.id, role: body.role, admin: body.admin });
    return { data: { ...(await accountView(db, params.id)), created } };
  },
});

export const deleteMembershipRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/admin/users/{id}/organizations/{cellId}',
  operationId: 'adminDeleteMembership',
  summary: 'Remove an account’s license in a company (operators; idempotent)',
  description: 'Keys the account holds for that company stop working at once.',
  tags: ['admin'],
  auth: OPERATOR,
  write: true,
  params: MembershipParams,
  response: { status: 200, description: 'The account with its remaining licenses.', schema: AccountView.extend({ removed: z.boolean() }) },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'user_not_found', 'organization_not_found'],
  async handler({ db, params }) {
    await accountView(db, params.id);
    const company = await findCompany(db, params.cellId);
    const result = await db.deleteFrom('licenses').where('account_id', '=', params.id).where('company_id', '=', company.id).executeTakeFirst();
    return { data: { ...(await accountView(db, params.id)), removed: result.numDeletedRows > 0n } };
  },
});

export const adminRoutes = [
  createOrganizationRoute,
  getOrganizationRoute,
  createUserRoute,
  listUsersRoute,
  updateUserRoute,
  putMembershipRoute,
  deleteMembershipRoute,
];
