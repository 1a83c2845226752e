import { z } from 'zod';
import {
  createAccount,
  getAccount,
  getCurrentUser,
  getUser,
  listAccountKeys,
  listAccounts,
  peopleScope,
  revokeAccountKeys,
  setUserAttributes,
  updateAccount,
} from '../../domain/accounts/index.ts';
import { createCompany, readCompany } from '../../domain/companies/index.ts';
import { removeLicense, setLicense } from '../../domain/members/index.ts';
import { hashPassword } from '../../domain/security/index.ts';
import { listSecurityEvents } from '../../domain/security-events/index.ts';
import { decodeTemporalPayloads } from '../../domain/system/index.ts';
import {
  AccountId,
  AccountKeyView,
  AccountView,
  CellId,
  CompanyView,
  CreateAccountInput,
  LicenseInput,
  SecurityEventKind,
  SecurityEventView,
  SetUserAttributesInput,
  UpdateAccountInput,
  UserAttributesView,
  UserView,
} from '../../schemas/identity.ts';
import { defineRoute } from '../http/route.ts';

// Admin endpoints, by key (the spec lists web sessions only for the device decision, key listing,
// ontology and filesystem APIs, and no admin page exists): operators (platform staff) for every
// company; a company's admins and developers read its people and its organization (people.manage).
// The paths keep the spec's names (organizations, users); the bodies speak of companies,
// accounts and licenses.
const ADMIN_ERRORS = ['unauthorized', 'forbidden'] as const;
const AccountParams = z.object({ id: AccountId });
const LicenseParams = AccountParams.extend({ cellId: CellId });

export const createOrganizationRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/organizations',
  operationId: 'adminCreateOrganization',
  summary: 'Create a company (operators)',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  body: z.strictObject({ cellId: CellId, name: z.string().trim().min(1).max(120) }),
  response: { status: 201, description: 'The new company.', schema: CompanyView },
  errors: [...ADMIN_ERRORS, 'conflict'],
  handler: async ({ db, body }) => ({ data: await createCompany(db, body) }),
});

export const getOrganizationRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/organizations/{rid}',
  operationId: 'adminGetOrganization',
  summary: 'One company and its members (its admins and developers, operators any); rid is the cellId or the company id',
  tags: ['admin'],
  auth: 'credential',
  params: z.object({ rid: z.union([CellId, z.string().regex(/^org_[0-9A-Za-z_]{3,40}$/)]) }),
  response: { status: 200, description: 'The company.', schema: CompanyView },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'organization_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await readCompany(db, principal, params.rid) }),
});

export const createUserRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/users',
  operationId: 'adminCreateUser',
  summary: 'Create an account, optionally with licenses (operators)',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  body: CreateAccountInput,
  response: { status: 201, description: 'The new account.', schema: AccountView },
  errors: [...ADMIN_ERRORS, 'conflict', 'organization_not_found'],
  // scrypt is slow: hashed before the transaction takes a connection.
  prepare: async ({ body, deps }) => (body.password ? hashPassword(body.password, deps.passwordHashing) : null),
  async handler({ db, body, prepared: passwordHash }) {
    const id = await createAccount(db, { ...body, passwordHash });
    return { data: await getAccount(db, id) };
  },
});

export const listUsersRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/users',
  operationId: 'adminListUsers',
  summary: 'Accounts by username, optionally filtered: a company’s people (its admins and developers), any account (operators)',
  description:
    'A company admin or developer lists the people licensed in their company, each showing that license only; operators list ' +
    'every account, or one company’s people with `organization`.',
  tags: ['admin'],
  auth: 'credential',
  query: z.strictObject({
    q: z.string().max(254).optional().meta({ description: 'Part of a username or email.' }),
    organization: CellId.optional().meta({ description: 'Only this company’s people.' }),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    after: z.string().max(64).optional().meta({ description: 'Continue after this username (the previous page’s `next`).' }),
  }),
  response: {
    status: 200,
    description: 'One page of accounts.',
    schema: z.object({ users: z.array(AccountView), next: z.string().nullable() }),
  },
  errors: [...ADMIN_ERRORS, 'invalid_payload', 'organization_not_found'],
  async handler({ db, principal, query }) {
    const companyIds = await peopleScope(db, principal, query.organization);
    const page = await listAccounts(db, { ...query, companyIds });
    return { data: { users: page.accounts, next: page.next } };
  },
});

export const getCurrentUserRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/users/me',
  operationId: 'adminGetCurrentUser',
  summary: 'The caller as a user (any person’s key)',
  tags: ['admin'],
  auth: 'credential',
  response: { status: 200, description: 'The caller.', schema: UserView },
  errors: ['unauthorized', 'forbidden'],
  handler: async ({ db, principal }) => ({ data: await getCurrentUser(db, principal) }),
});

export const getUserRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/users/{id}',
  operationId: 'adminGetUser',
  summary: 'One user: a person of the caller’s company (its admins and developers), any account (operators)',
  tags: ['admin'],
  auth: 'credential',
  params: AccountParams,
  response: { status: 200, description: 'The user.', schema: UserView },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'user_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await getUser(db, principal, params.id) }),
});

export const updateUserRoute = defineRoute({
  method: 'patch',
  path: '/api/v1/admin/users/{id}',
  operationId: 'adminUpdateUser',
  summary: 'Disable or re-enable an account, set flags or a new password (operators); attributes are never editable',
  description:
    'Disabling the account or setting a new password ends its web sessions and revokes its keys for good ' +
    '(re-enabling does not bring them back); both are written to the security event log.',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: AccountParams,
  body: UpdateAccountInput,
  response: { status: 200, description: 'The account after the change.', schema: AccountView },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'user_not_found', 'invalid_payload', 'attributes_not_editable'],
  prepare: async ({ body, deps }) => (body.password ? hashPassword(body.password, deps.passwordHashing) : undefined),
  async handler({ db, params, body: { password: _plaintext, ...change }, principal, ip, prepared: passwordHash }) {
    return { data: await updateAccount(db, principal, params.id, { ...change, passwordHash }, ip) };
  },
});

export const setUserAttributesRoute = defineRoute({
  method: 'put',
  path: '/api/v1/admin/users/{id}/attributes',
  operationId: 'adminSetUserAttributes',
  summary: 'Replace a company’s custom attributes of one of its people (its admins and developers; operators)',
  description:
    'Custom attributes are the company’s own: its object security policies compare properties with them ' +
    '(`{type: userAttribute, attribute}`), beside the derived svc: attributes, which are never set (422 attributes_not_editable). ' +
    'Another company’s attributes never count. A company whose people the caller does not manage is organization_not_found; ' +
    'an account without a license there is user_not_found. Recorded as user_attributes_set.',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: AccountParams,
  body: SetUserAttributesInput,
  response: { status: 200, description: 'The company’s custom attributes of the user after the change.', schema: UserAttributesView },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'invalid_payload', 'user_not_found', 'organization_not_found', 'attributes_not_editable'],
  handler: async ({ db, principal, params, body, ip }) => ({ data: await setUserAttributes(db, principal, params.id, body, ip) }),
});

export const putLicenseRoute = defineRoute({
  method: 'put',
  path: '/api/v1/admin/users/{id}/organizations/{cellId}',
  operationId: 'adminPutLicense',
  summary: 'Grant or change an account’s license in a company (operators)',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: LicenseParams,
  body: LicenseInput,
  response: { status: 200, description: 'The account with its licenses.', schema: AccountView.extend({ created: z.boolean() }) },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'user_not_found', 'organization_not_found'],
  handler: async ({ db, params, body }) => ({ data: await setLicense(db, { accountId: params.id, cellId: params.cellId, ...body }) }),
});

export const deleteLicenseRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/admin/users/{id}/organizations/{cellId}',
  operationId: 'adminDeleteLicense',
  summary: 'Remove an account’s license in a company (operators; idempotent)',
  description:
    'Keys the account holds for that company are revoked for good; granting the license again does not bring them back. Its ' +
    'roles on the company’s markings are withdrawn; while it is the last ADMINISTER of one, the removal is 409 last_admin_protected.',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: LicenseParams,
  response: { status: 200, description: 'The account with its remaining licenses.', schema: AccountView.extend({ removed: z.boolean() }) },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'user_not_found', 'organization_not_found', 'last_admin_protected'],
  handler: async ({ db, params, principal, ip }) => ({
    data: await removeLicense(db, { accountId: params.id, cellId: params.cellId, actorId: principal.account.id, ip }),
  }),
});

export const listUserKeysRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/users/{id}/keys',
  operationId: 'adminListUserKeys',
  summary: 'An account’s keys, revoked ones included with the reason (operators; prefix only)',
  tags: ['admin'],
  auth: 'credential',
  params: AccountParams,
  response: { status: 200, description: 'Keys, newest first.', schema: z.object({ keys: z.array(AccountKeyView) }) },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'user_not_found'],
  handler: async ({ db, params }) => ({ data: { keys: await listAccountKeys(db, params.id) } }),
});

export const revokeUserKeysRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/admin/users/{id}/keys',
  operationId: 'adminRevokeUserKeys',
  summary: 'Revoke an account’s keys for good, all or those for one company (operators; idempotent)',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: AccountParams,
  query: z.strictObject({ cellId: CellId.optional().meta({ description: 'Only the keys acting for this company.' }) }),
  response: { status: 200, description: 'The keys this call revoked.', schema: z.object({ revokedKeyIds: z.array(z.string()) }) },
  errors: [...ADMIN_ERRORS, 'invalid_path', 'invalid_payload', 'user_not_found', 'organization_not_found'],
  handler: async ({ db, params, query, principal, ip }) => ({
    data: { revokedKeyIds: await revokeAccountKeys(db, { accountId: params.id, cellId: query.cellId, actorId: principal.account.id, ip }) },
  }),
});

export const listSecurityEventsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/security-events',
  operationId: 'adminListSecurityEvents',
  summary: 'The security event log, newest first (operators)',
  description: 'Sign-in failures, lockouts, keys issued and revoked, password changes and resets, accounts disabled, licenses removed.',
  tags: ['admin'],
  auth: 'credential',
  query: z.strictObject({
    accountId: AccountId.optional(),
    kind: SecurityEventKind.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    before: z.string().max(200).optional().meta({ description: 'Continue with older events (the previous page’s `next`).' }),
  }),
  response: {
    status: 200,
    description: 'One page of events.',
    schema: z.object({ events: z.array(SecurityEventView), next: z.string().nullable() }),
  },
  errors: [...ADMIN_ERRORS, 'invalid_payload'],
  handler: async ({ db, query }) => ({ data: await listSecurityEvents(db, query) }),
});

/** The Temporal Web UI's codec endpoint setting: the UI posts to `<it>/decode`. */
export const TEMPORAL_CODEC_PATH = '/api/v1/admin/temporal-codec';

/** Temporal's Payload in proto JSON (bytes in base64), as its codec protocol sends it. */
const WirePayload = z
  .strictObject({
    metadata: z.record(z.string().min(1).max(256), z.base64()).optional(),
    data: z.base64().optional(),
  })
  .meta({ id: 'TemporalPayload' });
const Payloads = z.strictObject({ payloads: z.array(WirePayload).max(10_000) });

/** Temporal's largest payload (2 MiB, its blob size limit) and some. */
const CODEC_BODY_BYTES = 4 * 1024 * 1024;

export const decodeTemporalPayloadsRoute = defineRoute({
  method: 'post',
  path: `${TEMPORAL_CODEC_PATH}/decode`,
  operationId: 'adminDecodeTemporalPayloads',
  summary: 'Decode svc’s encrypted Temporal payloads: the codec server of the Temporal Web UI (platform staff)',
  description:
    'Temporal’s codec server protocol: the Web UI (Settings → Codec Server, endpoint `{base_url}/api/v1/admin/temporal-codec`, ' +
    '“include cross-origin credentials” on) posts the payloads it shows and gets them back in clear, in the same order; ' +
    'payloads that are not `binary/encrypted` come back as they are. Platform staff only: an operator key (the temporal ' +
    'CLI’s `--codec-auth "Bearer …"`) or a staff web session, cross-origin from the Temporal UI that `SVC_TEMPORAL_UI_URL` ' +
    '(or the embedded server) names. 422 payload_undecodable when a payload was sealed with a key this process lacks.',
  tags: ['admin'],
  auth: 'credential',
  bodyLimit: CODEC_BODY_BYTES,
  cors: {
    allowHeaders: ['x-namespace'],
    credentialedOrigin: (deps) => (deps.temporalUi ? new URL(deps.temporalUi.url).origin : undefined),
  },
  envelope: false,
  body: Payloads,
  response: { status: 200, description: 'The same payloads, decoded.', schema: Payloads },
  errors: [...ADMIN_ERRORS, 'invalid_session', 'invalid_payload', 'payload_too_large', 'payload_undecodable', 'conflict'],
  handler: async ({ deps, principal, body }) => ({ data: await decodeTemporalPayloads(deps.payloadDecoder, principal, body.payloads) }),
});

export const adminRoutes = [
  createOrganizationRoute,
  getOrganizationRoute,
  createUserRoute,
  listUsersRoute,
  getCurrentUserRoute,
  getUserRoute,
  updateUserRoute,
  setUserAttributesRoute,
  putLicenseRoute,
  deleteLicenseRoute,
  listUserKeysRoute,
  revokeUserKeysRoute,
  listSecurityEventsRoute,
  decodeTemporalPayloadsRoute,
];
