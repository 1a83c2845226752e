import { z } from 'zod';
import { CellId } from './identity.ts';
import { NAMESPACE_PATTERN, SLUG_PATTERN } from './manifest/index.ts';

// Sharing contracts shared by the service, the CLI and the browser SDK: app roles, auth/me, shares.

export const AppRole = z.enum(['developer', 'member', 'editor', 'viewer']);
export type AppRole = z.infer<typeof AppRole>;
export const ShareAudience = z.enum(['company', 'users', 'public']);
export const ShareId = z.string().regex(/^shr_[0-9A-Za-z]{10,40}$/, 'must be a share id (shr_…)');

/** With a developer key the app is named; with an app ticket it is the ticket's app. */
export const CurrentAppRef = {
  namespace: z.string().regex(NAMESPACE_PATTERN, 'must be public or cell-<company>').optional(),
  slug: z.string().regex(SLUG_PATTERN, 'must be a slug').optional(),
};

export const Permissions = z
  .object({
    read: z.array(z.string()).meta({ description: 'Semantic types the caller may read.' }),
    actions: z.array(z.string()).meta({ description: 'Actions the caller may run.' }),
    write: z.array(z.string()).meta({ description: 'Types the caller may write directly.' }),
    share: z.boolean(),
  })
  .meta({ id: 'Permissions' });

export const AuthMe = z
  .object({
    identity: z.object({ accountId: z.string(), username: z.string(), email: z.string() }),
    role: AppRole.nullable().meta({ description: 'The app role; without an app, the company role (null: no company).' }),
    permissions: Permissions,
    signedIn: z.literal(true).meta({ description: 'Always true: there are no anonymous callers.' }),
    member: z.boolean().meta({ description: 'A license in the app’s company (any company without an app).' }),
    app: z.object({ namespace: z.string(), slug: z.string() }).nullable(),
    channel: z.enum(['test', 'production']).nullable(),
    version: z.string().nullable(),
    viaShare: z.boolean(),
  })
  .meta({ id: 'AuthMe' });

export const ShareView = z
  .object({
    id: z.string(),
    audience: ShareAudience,
    role: z.enum(['editor', 'viewer']),
    account: z.object({ id: z.string(), username: z.string() }).nullable(),
    company: z
      .object({ cellId: z.string(), name: z.string() })
      .nullable()
      .meta({ description: 'The company whose members the share admits (audience company): the app’s own or another.' }),
    group: z
      .object({ id: z.string(), name: z.string() })
      .nullable()
      .meta({ description: 'The group a users share names instead of an account.' }),
    linkPrefix: z.string().nullable().meta({ description: 'The first characters of a public link’s token.' }),
    expiresAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Share' });
export type ShareView = z.input<typeof ShareView>;

export const CreateShareInput = z.discriminatedUnion('audience', [
  z.strictObject({
    ...CurrentAppRef,
    audience: z.literal('company'),
    company: CellId.optional().meta({ description: 'The company whose members may open the app (its cell id); default the app’s own.' }),
    role: z.literal('editor').default('editor'),
    expiresInDays: z.number().int().min(1).max(3650).optional(),
  }),
  z.strictObject({
    ...CurrentAppRef,
    audience: z.literal('users'),
    account: z
      .string()
      .min(1)
      .max(254)
      .meta({ description: 'Account id, username or email (any company), or the id of a group of the app’s company (grp_…).' }),
    role: z.literal('editor').default('editor'),
    expiresInDays: z.number().int().min(1).max(3650).optional(),
  }),
  z.strictObject({ ...CurrentAppRef, audience: z.literal('public'), role: z.literal('viewer').default('viewer') }),
]);
export type CreateShareInput = z.output<typeof CreateShareInput>;
