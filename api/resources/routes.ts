import { z } from 'zod';
import {
  addGrant,
  changeResourceMarkings,
  createLink,
  describeResource,
  LINK_DEFAULT_DAYS,
  listResourceMarkings,
  listResources,
  listRoles,
  redeemLink,
  removeGrant,
  revokeLink,
  searchPrincipals,
  setTier,
  TIERS,
} from '../../domain/resources/index.ts';
import { ResourceMarkingsInput, ResourceMarkingView } from '../../schemas/markings.ts';
import { defineRoute, withoutIssuedSecret } from '../http/route.ts';

// Generic resource access (spec D): one access model over the registered resource kinds
// (domain/resources/registry.ts). Keys and web sessions both reach it (spec Authentication 6).

const ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'not_found'] as const;
const Rid = z
  .string()
  .max(300)
  .regex(/^ri\.[a-z]+\.svc\.[a-z-]+\.[A-Za-z0-9._:-]+$/, 'must be a resource id ri.<service>.svc.<type>.<id>');
const Tier = z.enum(TIERS);
const Role = z.enum(['owner', 'editor', 'viewer']);
const RidParams = z.object({ rid: Rid });
const ResourceView = z
  .object({
    rid: z.string(),
    kind: z.string(),
    title: z.string(),
    organization: z.string().nullable(),
    role: Role,
    generalAccess: Tier,
    floor: Tier.meta({ description: 'The resource’s own setting: narrower tiers are refused with 409.' }),
    parent: z.string().nullable().meta({ description: 'The resource whose grants this one inherits.' }),
  })
  .meta({ id: 'Resource' });
const Principal = z.string().min(1).max(200);

export const listResourcesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/filesystem/resources',
  operationId: 'listResources',
  summary: 'Visible resources by scope (public, organization, shared, mine) and type',
  tags: ['filesystem'],
  auth: 'credential',
  query: z.strictObject({
    scope: z.enum(['public', 'organization', 'shared', 'mine']).default('organization'),
    type: z.string().max(40).optional(),
  }),
  response: { status: 200, description: 'Resources the caller has a role on.', schema: z.object({ resources: z.array(ResourceView) }) },
  errors: ['unauthorized', 'invalid_session', 'invalid_payload'],
  async handler({ db, deps, principal, query }) {
    return { data: { resources: await listResources(db, deps.clock, principal, query.scope, query.type) } };
  },
});

export const getResourceRoute = defineRoute({
  method: 'get',
  path: '/api/v1/filesystem/resources/{rid}',
  operationId: 'getResource',
  summary: 'A resource, the caller’s role and its general access',
  tags: ['filesystem'],
  auth: 'credential',
  params: RidParams,
  response: { status: 200, description: 'The resource (404 when the caller has no role on it).', schema: ResourceView },
  errors: [...ERRORS],
  handler: async ({ db, deps, principal, params }) => ({ data: await describeResource(db, deps.clock, principal, params.rid) }),
});

export const listRolesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/filesystem/resources/{rid}/roles',
  operationId: 'listResourceRoles',
  summary: 'Grants (own and inherited) and the implicit rules of a resource',
  tags: ['filesystem'],
  auth: 'credential',
  params: RidParams,
  response: {
    status: 200,
    description: 'Who has which role.',
    schema: z.object({
      rid: z.string(),
      grants: z.array(z.object({ principal: z.string(), role: Role, inheritedFrom: z.string().nullable() })),
      implicit: z.array(z.object({ principal: z.string(), role: Role, rule: z.string() })),
    }),
  },
  errors: [...ERRORS],
  handler: async ({ db, deps, principal, params }) => ({ data: await listRoles(db, deps.clock, principal, params.rid) }),
});

export const addRoleRoute = defineRoute({
  method: 'post',
  path: '/api/v1/filesystem/resources/{rid}/roles/add',
  operationId: 'addResourceRole',
  summary: 'Grant a role (Owner only); everyone and internet only as Viewer',
  description:
    'Principals: an account id, a group id, `everyone`, `internet`, `cell-<company>`, `cell-<company>:developers`, legacy ' +
    '`cell-<company>:dept:<id>`. internet on a kind without an anonymous read entry: 422 tier_unsupported.',
  tags: ['filesystem'],
  auth: 'credential',
  write: true,
  params: RidParams,
  body: z.strictObject({ principal: Principal, role: Role }),
  response: { status: 200, description: 'The resource after the grant.', schema: ResourceView },
  errors: [...ERRORS, 'invalid_payload', 'principal_not_found', 'tier_unsupported'],
  handler: async ({ db, deps, principal, params, body }) => ({ data: await addGrant(db, deps.clock, principal, params.rid, body) }),
});

export const removeRoleRoute = defineRoute({
  method: 'post',
  path: '/api/v1/filesystem/resources/{rid}/roles/remove',
  operationId: 'removeResourceRole',
  summary: 'Revoke a grant (Owner only; idempotent)',
  tags: ['filesystem'],
  auth: 'credential',
  write: true,
  params: RidParams,
  body: z.strictObject({ principal: Principal }),
  response: { status: 200, description: 'The resource after the revoke.', schema: ResourceView.extend({ removed: z.boolean() }) },
  errors: [...ERRORS, 'invalid_payload'],
  handler: async ({ db, deps, principal, params, body }) => ({
    data: await removeGrant(db, deps.clock, principal, params.rid, body.principal),
  }),
});

export const setTierRoute = defineRoute({
  method: 'post',
  path: '/api/v1/filesystem/resources/{rid}/access',
  operationId: 'setResourceTier',
  summary: 'Set the openness tier (Owner only), one step of the tier table',
  description:
    'private: every share but the Owners’ is removed. group: Public and Internet grants are removed; when nobody else has a ' +
    'share the whole organization gets Viewer. public: everyone gets Viewer. internet: internet gets Viewer (files, apps and ' +
    'the organization’s applications only, else 422). Narrower than the resource’s own setting: 409.',
  tags: ['filesystem'],
  auth: 'credential',
  write: true,
  params: RidParams,
  body: z.strictObject({ tier: Tier }),
  response: { status: 200, description: 'The resource at its new tier.', schema: ResourceView },
  errors: [...ERRORS, 'invalid_payload', 'conflict', 'tier_unsupported'],
  handler: async ({ db, deps, principal, params, body }) => ({ data: await setTier(db, deps.clock, principal, params.rid, body.tier) }),
});

const IssuedLink = z.object({
  id: z.string(),
  rid: z.string(),
  token: z.string().meta({ description: 'Shown only here; redeem it with POST /api/v1/filesystem/links/redeem.' }),
  expiresAt: z.iso.datetime(),
});

export const createLinkRoute = defineRoute({
  method: 'post',
  path: '/api/v1/filesystem/resources/{rid}/links',
  operationId: 'createResourceLink',
  summary: `Create an invitation link (Owner only; default ${LINK_DEFAULT_DAYS} days)`,
  tags: ['filesystem'],
  auth: 'credential',
  write: true,
  params: RidParams,
  body: z.strictObject({ days: z.number().int().min(1).max(365).default(LINK_DEFAULT_DAYS) }).optional(),
  response: { status: 201, description: 'The link; its token is kept only as a hash.', schema: IssuedLink },
  errors: [...ERRORS, 'invalid_payload'],
  async handler({ db, deps, principal, params, body }) {
    const link = await createLink(db, deps.clock, principal, params.rid, body?.days);
    return withoutIssuedSecret(link, 'token');
  },
});

export const revokeLinkRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/filesystem/resources/{rid}/links/{linkId}',
  operationId: 'revokeResourceLink',
  summary: 'Revoke an invitation link (Owner only; idempotent)',
  tags: ['filesystem'],
  auth: 'credential',
  write: true,
  params: RidParams.extend({ linkId: z.string().regex(/^lnk_[0-9A-Za-z]{10,40}$/) }),
  response: {
    status: 200,
    description: 'Revoked.',
    schema: z.object({ id: z.string(), revoked: z.literal(true), alreadyRevoked: z.boolean() }),
  },
  errors: [...ERRORS],
  handler: async ({ db, deps, principal, params }) => ({
    data: await revokeLink(db, deps.clock, principal, params.rid, params.linkId),
  }),
});

export const redeemLinkRoute = defineRoute({
  method: 'post',
  path: '/api/v1/filesystem/links/redeem',
  operationId: 'redeemResourceLink',
  summary: 'Redeem an invitation link: a Viewer grant for the caller (login required)',
  tags: ['filesystem'],
  auth: 'credential',
  write: true,
  body: z.strictObject({ token: z.string().min(1).max(64) }),
  response: {
    status: 200,
    description: 'The caller’s role on the resource.',
    schema: z.object({ rid: z.string(), role: Role, granted: z.boolean() }),
  },
  errors: ['unauthorized', 'invalid_session', 'forbidden', 'not_found', 'invalid_payload'],
  handler: async ({ db, deps, principal, body }) => ({
    data: await redeemLink(db, deps.clock, principal, body.token),
  }),
});

export const searchPrincipalsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/filesystem/principals',
  operationId: 'searchPrincipals',
  summary:
    'Sharing targets: own organization, developer group and groups (by name); accounts by exact username or email; organizations by exact cellId',
  description:
    'Groups of the caller’s companies are found by a part of their name (the first 50 by name; without `q`, the first 50). ' +
    'Accounts are found only by exact username or email, and only those the caller may see: people of the caller’s companies and ' +
    'accounts those companies already share with (a named app share, a resource grant by one of their people); developers and ' +
    'platform staff, who share with named people of any company, find any account.',
  tags: ['filesystem'],
  auth: 'credential',
  query: z.strictObject({ q: z.string().max(254).optional() }),
  response: {
    status: 200,
    description: 'Matching principals.',
    schema: z.object({
      principals: z.array(
        z.object({ principal: z.string(), kind: z.enum(['organization', 'developers', 'group', 'account']), label: z.string() }),
      ),
    }),
  },
  errors: ['unauthorized', 'invalid_session'],
  handler: async ({ db, deps, principal, query }) => ({
    data: { principals: await searchPrincipals(db, deps.clock, principal, query.q) },
  }),
});

const ResourceMarkings = z.object({ data: z.array(ResourceMarkingView) });

export const listResourceMarkingsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/filesystem/resources/{rid}/markings',
  operationId: 'listResourceMarkings',
  summary: 'The markings on a resource, its own and those it inherits (an object type’s ontology’s)',
  description:
    'A marked resource exists only for principals cleared for its markings (all of a CONJUNCTIVE category’s, any of a ' +
    'DISJUNCTIVE category’s), in addition to their role; for anyone else it is 404.',
  tags: ['filesystem'],
  auth: 'credential',
  params: RidParams,
  response: { status: 200, description: 'The markings.', schema: ResourceMarkings },
  errors: [...ERRORS],
  handler: async ({ db, deps, principal, params }) => ({ data: await listResourceMarkings(db, deps.clock, principal, params.rid) }),
});

export const addResourceMarkingsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/filesystem/resources/{rid}/addMarkings',
  operationId: 'addResourceMarkings',
  summary: 'Put markings on a resource (Owner, with USE on each marking)',
  description: 'Markings of the resource’s own company only (marking_not_found otherwise). Recorded in the security event log.',
  tags: ['filesystem'],
  auth: 'credential',
  write: true,
  params: RidParams,
  body: ResourceMarkingsInput,
  response: { status: 200, description: 'The resource’s markings after the change.', schema: ResourceMarkings },
  errors: [...ERRORS, 'invalid_payload', 'marking_not_found'],
  handler: async ({ db, deps, principal, params, body, ip }) => ({
    data: await changeResourceMarkings(db, deps.clock, principal, params.rid, 'add', body.markingIds, ip),
  }),
});

export const removeResourceMarkingsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/filesystem/resources/{rid}/removeMarkings',
  operationId: 'removeResourceMarkings',
  summary: 'Take markings off a resource (Owner, with DECLASSIFY on each marking; idempotent)',
  tags: ['filesystem'],
  auth: 'credential',
  write: true,
  params: RidParams,
  body: ResourceMarkingsInput,
  response: { status: 200, description: 'The resource’s markings after the change.', schema: ResourceMarkings },
  errors: [...ERRORS, 'invalid_payload', 'marking_not_found'],
  handler: async ({ db, deps, principal, params, body, ip }) => ({
    data: await changeResourceMarkings(db, deps.clock, principal, params.rid, 'remove', body.markingIds, ip),
  }),
});

export const filesystemRoutes = [
  listResourcesRoute,
  getResourceRoute,
  listRolesRoute,
  addRoleRoute,
  removeRoleRoute,
  setTierRoute,
  createLinkRoute,
  revokeLinkRoute,
  redeemLinkRoute,
  searchPrincipalsRoute,
  listResourceMarkingsRoute,
  addResourceMarkingsRoute,
  removeResourceMarkingsRoute,
];
