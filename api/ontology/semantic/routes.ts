import { z } from 'zod';
import {
  defineObjectTypes,
  describePublicApp,
  getPublicAppObject,
  listDefinitions,
  listPublicAppObjects,
  writeToBranch,
} from '../../../domain/ontology/index.ts';
import { Slug } from '../../../schemas/app-log.ts';
import { CellId } from '../../../schemas/identity.ts';
import {
  DefineTypesResult,
  LinkType,
  ObjectPage,
  ObjectType,
  ObjectTypeApiName,
  OntologyObject,
  PageSize,
  PageToken,
  PrimaryKeyParam,
} from '../../../schemas/ontology.ts';
import { BranchQuery, BranchWriteResult } from '../../../schemas/ontology-actions.ts';
import { defineRoute } from '../../http/route.ts';

// Semantic definitions (spec G): a developer-only interface over the namespace's ontology. The
// manifest's dotted semantic names are the object types' apiNames.

const NamespaceParams = z.strictObject({ namespace: CellId });
const Definitions = z.object({ types: z.array(ObjectType), linkTypes: z.array(LinkType) });

export const listSemanticTypesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/semantic/{namespace}/types',
  operationId: 'listSemanticTypes',
  summary: 'The namespace’s object types and link types (developers)',
  tags: ['semantic'],
  auth: 'credential',
  params: NamespaceParams,
  response: { status: 200, description: 'Every definition, by apiName.', schema: Definitions },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'organization_not_found'],
  handler: async ({ db, deps, principal, params }) => ({
    data: await listDefinitions({ db, clock: deps.clock }, principal, params.namespace),
  }),
});

export const defineSemanticTypesRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/semantic/{namespace}/types',
  operationId: 'defineSemanticTypes',
  summary: 'Define object types and link types in one batch (versioned; breaking changes refused)',
  description:
    'Each object type listed is created or changed to the definition given (types not listed stay as they are); then each link ' +
    'type. All or nothing, with the tables in the same transaction: a dry run or a refusal leaves nothing. A change is a new ' +
    'version. Adding a property is always allowed; removing one or changing its dataType only while no stored object holds a ' +
    'value there (409 definition_breaking_change lists the properties and how many objects block each); the primary key never ' +
    'changes. An invalid definition is 422 definition_invalid with each problem’s path and a Foundry-like errorName.',
  tags: ['semantic'],
  auth: 'credential',
  write: true,
  // 100 types of up to 200 properties each.
  bodyLimit: 1024 * 1024,
  params: NamespaceParams,
  // Checked by the use case, so a definition problem is 422 definition_invalid (spec) rather than 400.
  body: z.strictObject({ types: z.array(z.unknown()).max(100).optional(), linkTypes: z.array(z.unknown()).max(100).optional() }).meta({
    description:
      'types: [{apiName, displayName?, pluralDisplayName?, description?, primaryKey, titleProperty?, properties: {name: ' +
      '{dataType: {type: string|integer|long|double|boolean|date|timestamp} | {type: array, subType} | {type: struct, ' +
      'structFieldTypes: [{apiName, dataType}]}, displayName?, description?}}}]; linkTypes: [{apiName, source: {objectType, ' +
      'linkApiName, cardinality: ONE|MANY}, target: {…}}] (schemas/ontology.ts).',
  }),
  response: {
    status: 200,
    description: 'What each definition did; with ?branch=, the write waiting on the branch.',
    schema: z.union([DefineTypesResult, BranchWriteResult]),
  },
  errors: [
    'object_type_read_only',
    'unauthorized',
    'forbidden',
    'invalid_path',
    'invalid_payload',
    'organization_not_found',
    'definition_invalid',
    'definition_breaking_change',
    'branch_required',
    'branch_not_found',
    'conflict',
  ],
  query: BranchQuery,
  handler: async ({ db, deps, principal, params, query, body }) => ({
    data:
      query.branch === undefined
        ? await defineObjectTypes({ db, clock: deps.clock }, principal, params.namespace, body)
        : await writeToBranch({ db, clock: deps.clock }, principal, params.namespace, query.branch, 'objectTypes', body),
  }),
});

// The public app link (spec D rule 7): no credential is read. An app at the internet tier (its own
// or its company's applications resource) answers, read only, with the types its manifest reads;
// any other app, or the same one once its tier is lowered, is 404 app_not_found.

const PublicAppParams = z.strictObject({ namespace: CellId, slug: Slug });
const PublicTypeParams = PublicAppParams.extend({ objectType: ObjectTypeApiName });
const PUBLIC_LINK_ERRORS = ['invalid_path', 'rate_limited', 'app_not_found'] as const;
/** Per address: anyone may call these, and each reads the app's tier and manifest. */
const PUBLIC_LINK_RATE = { perMinute: 120 };

const PublicApp = z
  .object({
    namespace: z.string(),
    slug: z.string(),
    title: z.string(),
    version: z.string(),
    address: z.string().meta({ description: 'The production address; its pages open without login too.' }),
    objectTypes: z.array(ObjectType).meta({ description: 'The defined object types the app’s manifest reads (each by name).' }),
  })
  .meta({ id: 'PublicApp' });

export const getPublicAppRoute = defineRoute({
  method: 'get',
  path: '/semantic/{namespace}/applications/{slug}',
  operationId: 'getPublicApp',
  summary: 'The public app link: an internet-tier app and the object types it reads (no login)',
  description:
    'Readable without login when the app, or its company’s applications resource, is at the internet tier (spec D rule 7); ' +
    'read only, and only the object types the production manifest’s `semantic.types` names (a `*` is not widened). Any ' +
    'other app, or this one once its tier is lowered, is 404 app_not_found.',
  tags: ['semantic'],
  auth: 'none',
  rateLimit: PUBLIC_LINK_RATE,
  cors: {},
  params: PublicAppParams,
  response: { status: 200, description: 'The app and its readable types.', schema: PublicApp },
  errors: [...PUBLIC_LINK_ERRORS],
  handler: async ({ deps, params }) => ({ data: await describePublicApp(deps, params) }),
});

export const listPublicAppObjectsRoute = defineRoute({
  method: 'get',
  path: '/semantic/{namespace}/applications/{slug}/objects/{objectType}',
  operationId: 'listPublicAppObjects',
  summary: 'A page of objects of a type an internet-tier app reads (no login)',
  description: '`pageSize` up to 1000 (default 1000), `pageToken` from the previous page. A type the app does not read: 404.',
  tags: ['semantic'],
  auth: 'none',
  rateLimit: PUBLIC_LINK_RATE,
  cors: {},
  params: PublicTypeParams,
  query: z.strictObject({ pageSize: PageSize.optional(), pageToken: PageToken.optional() }),
  response: {
    status: 200,
    description: 'The objects, the next page’s token when there is one, and how many there are.',
    schema: ObjectPage,
  },
  errors: [...PUBLIC_LINK_ERRORS, 'invalid_payload', 'object_type_not_found', 'query_invalid'],
  handler: async ({ deps, params, query }) => ({ data: await listPublicAppObjects(deps, { ...params, ...query }) }),
});

export const getPublicAppObjectRoute = defineRoute({
  method: 'get',
  path: '/semantic/{namespace}/applications/{slug}/objects/{objectType}/{primaryKey}',
  operationId: 'getPublicAppObject',
  summary: 'One object of a type an internet-tier app reads (no login)',
  tags: ['semantic'],
  auth: 'none',
  rateLimit: PUBLIC_LINK_RATE,
  cors: {},
  params: PublicTypeParams.extend({ primaryKey: PrimaryKeyParam }),
  response: { status: 200, description: 'The object.', schema: OntologyObject },
  errors: [...PUBLIC_LINK_ERRORS, 'object_type_not_found', 'object_not_found'],
  handler: async ({ deps, params }) => ({ data: await getPublicAppObject(deps, params) }),
});

export const semanticRoutes = [
  listSemanticTypesRoute,
  defineSemanticTypesRoute,
  getPublicAppRoute,
  listPublicAppObjectsRoute,
  getPublicAppObjectRoute,
];
