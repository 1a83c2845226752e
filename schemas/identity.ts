import { z } from 'zod';
import { CELL_ID_PATTERN } from './manifest/index.ts';

// Identity contracts shared by the service, the CLI and the browser SDK: accounts, companies,
// licenses and keys as they cross the wire. The admin API keeps the spec's path names
// (`organizations`, `users`); the fields use the spec's words: company, account, license.

export const Role = z.enum(['developer', 'member']);
export const CellId = z.string().max(64).regex(CELL_ID_PATTERN, 'must be cell- followed by lowercase letters, digits and hyphens');
export const ClientName = z.string().min(1).max(80);

export const Username = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{1,63}$/, '2 to 64 letters, digits, dots, hyphens or underscores');
export const Email = z.email().max(254);
/** New passwords only; a login attempt accepts any 1 to 256 characters. */
export const NewPassword = z.string().min(12, 'at least 12 characters').max(256);
export const AccountId = z.string().regex(/^acc_[0-9A-Za-z]{10,40}$/, 'must be an account id (acc_…)');
export const KeyId = z.string().regex(/^key_[0-9A-Za-z]{10,40}$/, 'must be a key id (key_…)');

export const LicenseInput = z.strictObject({ role: Role, admin: z.boolean().default(false) });

export const CompanySummary = z.object({ cellId: z.string(), name: z.string() }).meta({ id: 'CompanySummary' });

/** A user as the spec's Admin API shows one (Foundry's User shape). */
const UserShape = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  status: z.enum(['active', 'pending', 'disabled']),
  givenName: z.string().nullable().meta({ description: 'The first word of the display name (member import); null without one.' }),
  familyName: z.string().nullable().meta({ description: 'The rest of the display name; null without one.' }),
  organization: z
    .string()
    .nullable()
    .meta({ description: 'The company (cellId) the user was first licensed in, among those the caller may see; null: none.' }),
  attributes: z.record(z.string(), z.array(z.string())).meta({
    description:
      'Derived from the account and the licenses the caller may see (svc:username, svc:email, svc:organizations, svc:role:<cellId>); read-only. A company’s custom attributes: PUT /api/v1/admin/users/{id}/attributes.',
  }),
});
export const UserView = UserShape.meta({ id: 'User' });
export type UserView = z.input<typeof UserView>;

/** A user with what operators (and company admins, for their company's licenses) manage. */
export const AccountView = UserShape.extend({
  emailVerified: z.boolean(),
  mustChangePassword: z.boolean(),
  platformStaff: z.boolean(),
  licenses: z.array(CompanySummary.extend({ role: Role, admin: z.boolean() })),
  createdAt: z.iso.datetime(),
}).meta({ id: 'Account' });
export type AccountView = z.input<typeof AccountView>;

export const CompanyView = z
  .object({
    id: z.string(),
    cellId: z.string(),
    name: z.string(),
    createdAt: z.iso.datetime(),
    members: z.array(z.object({ accountId: z.string(), username: z.string(), role: Role, admin: z.boolean() })),
  })
  .meta({ id: 'Company' });
export type CompanyView = z.input<typeof CompanyView>;

export const CreateAccountInput = z.strictObject({
  username: Username,
  email: Email,
  password: NewPassword.optional().meta({ description: 'Without a password the account is pending and cannot sign in.' }),
  mustChangePassword: z.boolean().default(false),
  emailVerified: z.boolean().default(false),
  licenses: z
    .array(z.strictObject({ cellId: CellId, role: Role, admin: z.boolean().default(false) }))
    .max(50)
    .default([]),
});
export type CreateAccountInput = z.output<typeof CreateAccountInput>;

export const UpdateAccountInput = z
  .strictObject({
    status: z.enum(['active', 'disabled']).optional(),
    password: NewPassword.optional(),
    mustChangePassword: z.boolean().optional(),
    emailVerified: z.boolean().optional(),
    attributes: z.unknown().optional().meta({
      description:
        'Never editable here: any value is refused with attributes_not_editable (svc: attributes derive from the account; custom ones: PUT /api/v1/admin/users/{id}/attributes).',
    }),
  })
  .refine((b) => Object.keys(b).length > 0, 'name at least one field to change');
export type UpdateAccountInput = z.output<typeof UpdateAccountInput>;

/** A custom attribute's name: never `svc:…` (those derive from the account: attributes_not_editable). */
const CustomAttributeName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z][A-Za-z0-9_.:-]*$/, 'a letter, then letters, digits, _ . : -');
const CustomAttributes = z
  .record(CustomAttributeName, z.array(z.string().min(1).max(200)).max(100))
  .refine((a) => Object.keys(a).length <= 50, 'at most 50 attributes')
  .meta({ description: 'Each custom attribute with its values (an empty list removes it).' });

export const SetUserAttributesInput = z.strictObject({
  organization: CellId.meta({ description: 'The company whose attributes these are: only its security policies read them.' }),
  attributes: CustomAttributes,
});
export type SetUserAttributesInput = z.output<typeof SetUserAttributesInput>;

export const UserAttributesView = z
  .object({
    userId: z.string(),
    organization: z.string(),
    attributes: z.record(z.string(), z.array(z.string())).meta({ description: 'The company’s custom attributes of the user.' }),
  })
  .meta({ id: 'UserAttributes' });
export type UserAttributesView = z.input<typeof UserAttributesView>;

/** The answer of every call that issues a key: the only place its plaintext appears. */
export const IssuedKey = z
  .object({
    key: z.string().meta({ description: 'The key (svc-dk-…). Shown only in this response.' }),
    keyId: z.string(),
    prefix: z.string(),
    role: Role,
    clientName: z.string(),
    account: z.object({ id: z.string(), username: z.string() }),
    company: CompanySummary,
  })
  .meta({ id: 'IssuedKey' });
export type IssuedKey = z.input<typeof IssuedKey>;

export const KeySummary = z
  .object({
    keyId: z.string(),
    prefix: z.string(),
    role: Role,
    clientName: z.string(),
    company: CompanySummary,
    createdAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().nullable(),
    current: z.boolean().meta({ description: 'Whether this is the key of the calling request.' }),
  })
  .meta({ id: 'KeySummary' });
export type KeySummary = z.input<typeof KeySummary>;

export const Me = z
  .object({
    account: z.object({ id: z.string(), username: z.string(), email: z.string(), platformStaff: z.boolean() }),
    company: CompanySummary,
    role: Role,
    keyPrefix: z.string(),
    writableNamespaces: z.array(z.string()).meta({ description: 'Empty for members.' }),
  })
  .meta({ id: 'Me' });

export const SecurityEventKind = z.enum([
  'sign_in_failed',
  'account_locked',
  'key_issued',
  'key_revoked',
  'password_changed',
  'password_reset',
  'account_disabled',
  'account_enabled',
  'license_removed',
  'group_created',
  'group_deleted',
  'group_member_added',
  'group_member_removed',
  'marking_category_created',
  'marking_created',
  'marking_role_added',
  'marking_role_removed',
  'resource_marking_added',
  'resource_marking_removed',
  'object_security_policy_set',
  'user_attributes_set',
]);

export const SecurityEventView = z
  .object({
    id: z.string(),
    at: z.iso.datetime(),
    kind: SecurityEventKind,
    accountId: z.string().nullable().meta({ description: 'Null when the typed login matched no account.' }),
    actorId: z.string().nullable().meta({ description: 'The operator, when someone other than the account acted.' }),
    ip: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'SecurityEvent' });
export type SecurityEventView = z.input<typeof SecurityEventView>;

/** Why a key stopped working (shown to its owner and to operators). */
export const KeyRevocationReason = z.enum([
  'owner',
  'operator',
  'password_change',
  'password_reset',
  'account_disabled',
  'license_removed',
]);

/** A key as operators see it: revoked keys stay listed with when and why. */
export const AccountKeyView = KeySummary.omit({ current: true })
  .extend({
    issuedBy: z.enum(['password', 'device', 'agent']),
    revokedAt: z.iso.datetime().nullable(),
    revokedReason: KeyRevocationReason.nullable(),
  })
  .meta({ id: 'AccountKey' });
