import { z } from 'zod';
import { createShare, describeCaller, listShares, revokeShare } from '../../domain/sharing/index.ts';
import { Channel } from '../../schemas/apps.ts';
import { AuthMe, CreateShareInput, CurrentAppRef, ShareId, ShareView } from '../../schemas/sharing.ts';
import { defineRoute, withoutIssuedSecret } from '../http/route.ts';

// App roles and shares (spec C). auth/me describes the caller in the app of its ticket, or the one
// named. Shares are managed by the app's developers through a key or a web session, naming the app
// by namespace and slug (body of POST, query otherwise; a revoke may name the share alone); app
// tickets never share (the route table).

const SHARE_ERRORS = ['unauthorized', 'forbidden', 'invalid_payload', 'app_not_found'] as const;

export const authMeRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/auth/me',
  operationId: 'getAuthMe',
  summary: 'The caller, and for an app its role, permissions, channel and version',
  description:
    'With an app ticket the app is the ticket’s; with a key or a web session name it with namespace and slug (channel defaults ' +
    'to production). Roles: developer, member, editor (named-account share), viewer (public link). 403 when the caller cannot open the app.',
  tags: ['sharing'],
  auth: 'credential',
  query: z.strictObject({ ...CurrentAppRef, channel: Channel.default('production') }),
  response: { status: 200, description: 'Who is calling and what they may do.', schema: AuthMe },
  errors: ['unauthorized', 'invalid_session', 'forbidden', 'app_not_found', 'invalid_payload'],
  handler: async ({ deps, principal, query }) => ({ data: await describeCaller(deps, principal, query) }),
});

export const listSharesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/shares',
  operationId: 'listShares',
  summary: 'The live shares of the current app (public links show a prefix)',
  tags: ['sharing'],
  auth: 'credential',
  query: z.strictObject(CurrentAppRef),
  response: { status: 200, description: 'Live shares, oldest first.', schema: z.object({ shares: z.array(ShareView) }) },
  errors: [...SHARE_ERRORS],
  async handler({ db, deps, principal, query }) {
    return { data: { shares: await listShares(db, principal, query, deps.clock.now()) } };
  },
});

export const createShareRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/shares',
  operationId: 'createShare',
  summary: 'Share the current app with a company (its own or another), named accounts (any company) or a public link',
  description:
    'A company share admits the members of the app’s company (`company` absent) or of the company named by its cell id: ' +
    'another company’s people open the production version as editors. ' +
    'Repeating a company or users share for the same target changes its role and expiry (`created: false`); each public share ' +
    'makes a new link, whose `url` is returned only here (the service keeps its hash). Links need login and open production read-only.',
  tags: ['sharing'],
  auth: 'credential',
  write: true,
  body: CreateShareInput,
  response: {
    status: 201,
    description: 'The share.',
    schema: z.object({ share: ShareView, created: z.boolean(), url: z.string().optional() }),
  },
  errors: [...SHARE_ERRORS, 'user_not_found', 'organization_not_found', 'principal_not_found', 'conflict'],
  async handler({ db, deps, principal, body }) {
    const created = await createShare(db, { clock: deps.clock, addresses: deps.addresses() }, principal, body);
    return { ...withoutIssuedSecret(created, 'url'), status: created.created ? 201 : 200 };
  },
});

export const revokeShareRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/developer/shares/{id}',
  operationId: 'revokeShare',
  summary: 'Revoke a share: the link or grant stops at once (idempotent)',
  description:
    'The id alone names the share and so its app; namespace and slug, when given, must be the share’s app (else 404 not_found). ' +
    'Only the app’s developers may revoke, whichever way it is named.',
  tags: ['sharing'],
  auth: 'credential',
  write: true,
  params: z.object({ id: ShareId }),
  query: z.strictObject(CurrentAppRef),
  response: {
    status: 200,
    description: 'The share is revoked (also when it already was).',
    schema: z.object({ share: ShareView, revoked: z.literal(true), alreadyRevoked: z.boolean() }),
  },
  errors: [...SHARE_ERRORS, 'invalid_path', 'not_found'],
  async handler({ db, deps, principal, params, query }) {
    const result = await revokeShare(db, deps.clock, principal, query, params.id);
    return { data: { ...result, revoked: true as const } };
  },
});

export const shareRoutes = [authMeRoute, listSharesRoute, createShareRoute, revokeShareRoute];
