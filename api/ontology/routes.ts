import { z } from 'zod';
import {
  APP_HEADER,
  aggregateObjectSet,
  aggregateObjects,
  createTemporaryObjectSet,
  editObjects,
  getLinkedObject,
  getObject,
  getObjectSet,
  getObjectType,
  getObjectTypeSecurity,
  getOntology,
  getOutgoingLinkType,
  importObjects,
  listLinkedObjects,
  listObjects,
  listObjectTypes,
  listOntologies,
  listOutgoingLinkTypes,
  loadObjectSet,
  parseAppHeader,
  searchObjects,
  setObjectTypeSecurity,
  testObjectSecurity,
} from '../../domain/ontology/index.ts';
import { ObjectSecurityPolicy, ObjectTypeSecurity, SecurityTestRequest, SecurityTestResult } from '../../schemas/object-security.ts';
import {
  AggregateObjectSetRequest,
  AggregateObjectsRequest,
  AggregateObjectsResponse,
  CreateTemporaryObjectSetRequest,
  EditObjectsRequest,
  EditObjectsResponse,
  ImportMode,
  ImportObjectsRequest,
  ImportObjectsResponse,
  LinkApiName,
  LinkTypeSide,
  LoadObjectSetRequest,
  MAX_DIRECT_EDITS,
  MAX_GROUP_COUNT,
  MAX_IMPORT_OBJECTS,
  ObjectPage,
  ObjectSetSchema,
  ObjectType,
  ObjectTypeParams,
  Ontology,
  OntologyObject,
  OntologyParams,
  PageSize,
  PageToken,
  PrimaryKeyParam,
  PropertyApiName,
  SearchObjectsRequest,
  TemporaryObjectSet,
} from '../../schemas/ontology.ts';
import { defineRoute } from '../http/route.ts';

// The ontology read routes (Foundry Ontologies v2 shapes under /api/v1). Keys, web sessions and
// app tickets (for their own app) are accepted; what a caller may read comes from
// domain/ontology/data-access.ts, and anything else does not exist for it (404).

const READ_ERRORS = ['unauthorized', 'invalid_session', 'invalid_path', 'ontology_not_found'] as const;

/** `select=a&select=b` or `select=a,b`. */
export const SelectQuery = z
  .union([z.string(), z.array(z.string()).max(200)])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).filter((s) => s !== ''))
  .pipe(z.array(PropertyApiName).max(200));

export const listOntologiesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies',
  operationId: 'listOntologies',
  summary: 'The ontologies of the caller’s companies that it may read',
  tags: ['ontologies'],
  auth: 'credential',
  response: { status: 200, description: 'One per company at most.', schema: z.object({ data: z.array(Ontology) }) },
  errors: ['unauthorized', 'invalid_session'],
  handler: async ({ deps, principal }) => ({ data: { data: await listOntologies(deps, principal) } }),
});

export const getOntologyRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}',
  operationId: 'getOntology',
  summary: 'One ontology, by API name (the company’s namespace) or RID',
  tags: ['ontologies'],
  auth: 'credential',
  params: OntologyParams,
  response: { status: 200, description: 'The ontology.', schema: Ontology },
  errors: [...READ_ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: await getOntology(deps, principal, params.ontology) }),
});

export const listObjectTypesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objectTypes',
  operationId: 'listObjectTypes',
  summary: 'The object types the caller may read',
  tags: ['ontologies'],
  auth: 'credential',
  params: OntologyParams,
  response: {
    status: 200,
    description: 'By apiName (one page: at most the 100 types a batch defines, many times over).',
    schema: z.object({ data: z.array(ObjectType) }),
  },
  errors: [...READ_ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: { data: await listObjectTypes(deps, principal, params.ontology) } }),
});

export const getObjectTypeRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objectTypes/{objectType}',
  operationId: 'getObjectType',
  summary: 'One object type',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams,
  response: { status: 200, description: 'The object type (ObjectTypeV2 and its version).', schema: ObjectType },
  errors: [...READ_ERRORS, 'object_type_not_found'],
  handler: async ({ deps, principal, params }) => ({ data: await getObjectType(deps, principal, params.ontology, params.objectType) }),
});

// Object and property security policies (issue 29, Deliver 5): a sub-resource of the object type,
// managed and tested by the company's developers; every read applies them (domain/ontology/object-security.ts).

const SECURITY_ERRORS = [...READ_ERRORS, 'forbidden', 'object_type_not_found'] as const;

export const getObjectTypeSecurityRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objectTypes/{objectType}/security',
  operationId: 'getObjectTypeSecurity',
  summary: 'The object and property security policies of an object type (developers)',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams,
  response: { status: 200, description: 'The policies (none set: no object policy, no property policies).', schema: ObjectTypeSecurity },
  errors: [...SECURITY_ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: await getObjectTypeSecurity(deps, principal, params) }),
});

export const setObjectTypeSecurityRoute = defineRoute({
  method: 'put',
  path: '/api/v1/ontologies/{ontology}/objectTypes/{objectType}/security',
  operationId: 'setObjectTypeSecurity',
  summary: 'Replace the object and property security policies of an object type (developers)',
  description:
    'An object policy hides, from a principal who fails any of its conditions, every object of the type; a property policy ' +
    'nulls its properties. Conditions: `{type: marking, markingId}` (a role on the marking, of the company, clears) and ' +
    '`{type: userAttribute, property, attribute}` (the string property equals one of the principal’s values of the user ' +
    'attribute). Every read applies them: search, list, get, aggregates and counts, object sets, links, subscriptions, ' +
    'exports, workflow `use` steps; in ontology SQL a type the policies filter for the caller is not a table. An unknown ' +
    'or non-string property, or the primary key in a property policy, is 422 definition_invalid. Recorded in the security ' +
    'event log (object_security_policy_set).',
  tags: ['ontologies'],
  auth: 'credential',
  write: true,
  params: ObjectTypeParams,
  body: ObjectSecurityPolicy,
  response: { status: 200, description: 'The policies now in force.', schema: ObjectTypeSecurity },
  errors: [...SECURITY_ERRORS, 'invalid_payload', 'definition_invalid', 'marking_not_found'],
  handler: async ({ db, deps, principal, params, body, ip }) => ({
    data: await setObjectTypeSecurity({ db, clock: deps.clock }, principal, { ...params, policy: body, ip }),
  }),
});

export const testObjectSecurityRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/objectTypes/{objectType}/security/test',
  operationId: 'testObjectSecurity',
  summary: 'What a principal would read of a sample object under the type’s policies, and why (developers)',
  description:
    'Judges `object` (property values by name) for `userId` (default: the caller; a user the caller may see, else ' +
    'user_not_found), with `attributes` and `markingIds` replacing theirs when given (a what-if). Nothing is read or written.',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams,
  body: SecurityTestRequest,
  response: {
    status: 200,
    description: 'Whether the object is visible, what is nulled, and each condition’s outcome.',
    schema: SecurityTestResult,
  },
  errors: [...SECURITY_ERRORS, 'invalid_payload', 'user_not_found'],
  handler: async ({ deps, principal, params, body }) => ({ data: await testObjectSecurity(deps, principal, { ...params, request: body }) }),
});

export const listOutgoingLinkTypesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objectTypes/{objectType}/outgoingLinkTypes',
  operationId: 'listOutgoingLinkTypes',
  summary: 'The link types of an object type, as seen from it',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams,
  response: { status: 200, description: 'LinkTypeSideV2 by apiName.', schema: z.object({ data: z.array(LinkTypeSide) }) },
  errors: [...READ_ERRORS, 'object_type_not_found'],
  handler: async ({ deps, principal, params }) => ({
    data: { data: await listOutgoingLinkTypes(deps, principal, params.ontology, params.objectType) },
  }),
});

export const getOutgoingLinkTypeRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objectTypes/{objectType}/outgoingLinkTypes/{linkType}',
  operationId: 'getOutgoingLinkType',
  summary: 'One link type of an object type, as seen from it',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams.extend({ linkType: LinkApiName }),
  response: { status: 200, description: 'LinkTypeSideV2.', schema: LinkTypeSide },
  errors: [...READ_ERRORS, 'object_type_not_found', 'link_type_not_found'],
  handler: async ({ deps, principal, params }) => ({
    data: await getOutgoingLinkType(deps, principal, params.ontology, params.objectType, params.linkType),
  }),
});

export const getObjectRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objects/{objectType}/{primaryKey}',
  operationId: 'getObject',
  summary: 'One object by its primary key',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams.extend({ primaryKey: PrimaryKeyParam }),
  query: z.strictObject({ select: SelectQuery.optional() }),
  response: {
    status: 200,
    description: 'The object: its properties (nulls omitted), __apiName, __primaryKey, __rid, __rev.',
    schema: OntologyObject,
  },
  errors: [...READ_ERRORS, 'invalid_payload', 'object_type_not_found', 'object_not_found', 'query_invalid'],
  handler: async ({ deps, principal, params, query }) => ({ data: await getObject(deps, principal, { ...params, select: query.select }) }),
});

export const listObjectsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objects/{objectType}',
  operationId: 'listObjects',
  summary: 'A page of an object type’s objects',
  description:
    '`pageSize` up to 1000 (default 1000), `pageToken` from the previous page, `select` properties (repeat or comma-separate), ' +
    '`orderBy` as `properties.x:asc` (comma-separated, then the primary key; nulls last).',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams,
  query: z.strictObject({
    pageSize: PageSize.optional(),
    pageToken: PageToken.optional(),
    select: SelectQuery.optional(),
    orderBy: z.string().max(2000).optional(),
  }),
  response: {
    status: 200,
    description: 'The objects, the next page’s token when there is one, and how many there are.',
    schema: ObjectPage,
  },
  errors: [...READ_ERRORS, 'invalid_payload', 'object_type_not_found', 'query_invalid'],
  handler: async ({ deps, principal, params, query }) => ({ data: await listObjects(deps, principal, { ...params, ...query }) }),
});

export const searchObjectsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/objects/{objectType}/search',
  operationId: 'searchObjects',
  summary: 'Objects matching a where clause, ordered and paged',
  description:
    'Foundry searchObjects: `where` (eq, gt, gte, lt, lte, isNull, contains, in, startsWith, and, or, not; nested at most 3 ' +
    'deep), `orderBy.fields[{field, direction}]`, `pageSize`, `pageToken`, `select`. A property that does not exist, a value ' +
    'of the wrong type or an operator the property’s type does not support is 400 query_invalid with details.errorName.',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams,
  body: SearchObjectsRequest,
  response: { status: 200, description: 'One page of matching objects.', schema: ObjectPage },
  errors: [...READ_ERRORS, 'invalid_payload', 'object_type_not_found', 'query_invalid'],
  handler: async ({ deps, principal, params, body }) => ({ data: await searchObjects(deps, principal, { ...params, request: body }) }),
});

export const aggregateObjectsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/objects/{objectType}/aggregate',
  operationId: 'aggregateObjects',
  summary: 'Metrics over the objects matching a where clause, optionally grouped',
  description:
    'Foundry aggregateObjects: `aggregation[{type: count|min|max|sum|avg|exactDistinct, field, name}]`, `where`, `groupBy[{type: ' +
    `exact, field, maxGroupCount ≤ ${MAX_GROUP_COUNT}} | {type: ranges, field, ranges[{startValue, endValue}]}]\` (start inclusive, ` +
    'end exclusive). More groups than allowed is 400 query_invalid AggregationGroupCountExceededLimit.',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams,
  body: AggregateObjectsRequest,
  response: { status: 200, description: 'One entry per group (one without groupBy).', schema: AggregateObjectsResponse },
  errors: [...READ_ERRORS, 'invalid_payload', 'object_type_not_found', 'query_invalid'],
  handler: async ({ deps, principal, params, body }) => ({ data: await aggregateObjects(deps, principal, { ...params, request: body }) }),
});

export const listLinkedObjectsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objects/{objectType}/{primaryKey}/links/{linkType}',
  operationId: 'listLinkedObjects',
  summary: 'A page of the objects linked to one object',
  description: 'Paged, selected and ordered as the object list. The link is named as the object’s type sees it (outgoingLinkTypes).',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams.extend({ primaryKey: PrimaryKeyParam, linkType: LinkApiName }),
  query: z.strictObject({
    pageSize: PageSize.optional(),
    pageToken: PageToken.optional(),
    select: SelectQuery.optional(),
    orderBy: z.string().max(2000).optional(),
  }),
  response: { status: 200, description: 'The linked objects.', schema: ObjectPage },
  errors: [...READ_ERRORS, 'invalid_payload', 'object_type_not_found', 'object_not_found', 'link_type_not_found', 'query_invalid'],
  handler: async ({ deps, principal, params, query }) => ({ data: await listLinkedObjects(deps, principal, { ...params, ...query }) }),
});

export const getLinkedObjectRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objects/{objectType}/{primaryKey}/links/{linkType}/{linkedPrimaryKey}',
  operationId: 'getLinkedObject',
  summary: 'One linked object, when the two objects are linked',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams.extend({ primaryKey: PrimaryKeyParam, linkType: LinkApiName, linkedPrimaryKey: PrimaryKeyParam }),
  query: z.strictObject({ select: SelectQuery.optional() }),
  response: { status: 200, description: 'The linked object.', schema: OntologyObject },
  errors: [...READ_ERRORS, 'invalid_payload', 'object_type_not_found', 'object_not_found', 'link_type_not_found', 'query_invalid'],
  handler: async ({ deps, principal, params, query }) => ({
    data: await getLinkedObject(deps, principal, { ...params, select: query.select }),
  }),
});

const OBJECT_SET_ERRORS = [
  ...READ_ERRORS,
  'invalid_payload',
  'object_type_not_found',
  'link_type_not_found',
  'object_set_not_found',
  'query_invalid',
] as const;

export const loadObjectSetRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/objectSets/loadObjects',
  operationId: 'loadObjectSet',
  summary: 'A page of an object set’s objects',
  description:
    'Foundry loadObjectSetV2: `objectSet` (base, filter, union, intersect, subtract, searchAround, static, reference), then ' +
    '`orderBy`, `pageSize`, `pageToken`, `select` as in search.',
  tags: ['ontologies'],
  auth: 'credential',
  params: OntologyParams,
  body: LoadObjectSetRequest,
  response: { status: 200, description: 'One page of the set’s objects.', schema: ObjectPage },
  errors: [...OBJECT_SET_ERRORS],
  handler: async ({ deps, principal, params, body }) => ({ data: await loadObjectSet(deps, principal, params.ontology, body) }),
});

export const aggregateObjectSetRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/objectSets/aggregate',
  operationId: 'aggregateObjectSet',
  summary: 'Metrics over an object set’s objects, optionally grouped',
  tags: ['ontologies'],
  auth: 'credential',
  params: OntologyParams,
  body: AggregateObjectSetRequest,
  response: { status: 200, description: 'One entry per group (one without groupBy).', schema: AggregateObjectsResponse },
  errors: [...OBJECT_SET_ERRORS],
  handler: async ({ deps, principal, params, body }) => ({ data: await aggregateObjectSet(deps, principal, params.ontology, body) }),
});

export const createTemporaryObjectSetRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/objectSets/createTemporary',
  operationId: 'createTemporaryObjectSet',
  summary: 'Keep an object set for 24 hours under a RID',
  description: 'Referenced sets are stored as what they name, so the new set outlives them.',
  tags: ['ontologies'],
  auth: 'credential',
  write: true,
  params: OntologyParams,
  body: CreateTemporaryObjectSetRequest,
  response: { status: 200, description: 'The RID to pass as `{type: reference, reference}` or to GET.', schema: TemporaryObjectSet },
  errors: [...OBJECT_SET_ERRORS],
  handler: async ({ db, deps, principal, params, body }) => ({
    data: await createTemporaryObjectSet({ db, clock: deps.clock }, principal, params.ontology, body.objectSet),
  }),
});

export const getObjectSetRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objectSets/{objectSetRid}',
  operationId: 'getObjectSet',
  summary: 'A temporary object set’s definition',
  tags: ['ontologies'],
  auth: 'credential',
  params: OntologyParams.extend({ objectSetRid: z.string().min(1).max(200) }),
  response: {
    status: 200,
    description: 'The set, with the sets it referenced written out.',
    schema: z.object({ objectSet: ObjectSetSchema }),
  },
  errors: [...OBJECT_SET_ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: await getObjectSet(deps, principal, params.ontology, params.objectSetRid) }),
});

export const editObjectsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/edits',
  operationId: 'editObjects',
  summary: 'Create, modify and delete objects and links directly (developers)',
  description:
    `Up to ${MAX_DIRECT_EDITS} edits, applied in order, all or none: \`{type: create, objectType, properties}\` (the primary key ` +
    'among the properties), `{type: modify, objectType, primaryKey, properties, ifRev?}` (null clears a property), ' +
    '`{type: delete, objectType, primaryKey, ifRev?}`, `{type: addLink|removeLink, linkType, source, target}`. `ifRev` refuses ' +
    'the edit with 409 rev_mismatch unless the object is at that revision (`__rev`). Each edit is in the edits history; ' +
    'subscribers and change triggers see each changed object once. With `x-svc-app: <namespace>/<slug>` (an app you may open) ' +
    "the edit is recorded as action/data.edit in that app's log.",
  tags: ['ontologies'],
  auth: 'credential',
  write: true,
  bodyLimit: 4 * 1024 * 1024,
  params: OntologyParams,
  body: EditObjectsRequest,
  response: { status: 200, description: 'Each changed object before and after.', schema: EditObjectsResponse },
  errors: [
    ...READ_ERRORS,
    'forbidden',
    'invalid_payload',
    'object_type_not_found',
    'object_not_found',
    'link_type_not_found',
    'rev_mismatch',
    'conflict',
    'object_type_read_only',
  ],
  handler: async ({ ctx, db, deps, principal, params, body }) => ({
    data: await editObjects({ db, clock: deps.clock }, principal, params.ontology, body, parseAppHeader(ctx.get(APP_HEADER))),
  }),
});

export const importObjectsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/objects/{objectType}/import',
  operationId: 'importObjects',
  summary: 'Load a JSON array of objects of one type (developers)',
  description:
    `Up to ${MAX_IMPORT_OBJECTS} objects (16 MiB), each with its primary key, in one transaction. \`mode=create\` (default) ` +
    'refuses an object that exists (409 conflict); `mode=upsert` modifies it with the properties given. With ' +
    "`x-svc-app: <namespace>/<slug>` the import is recorded as action/data.import in that app's log.",
  tags: ['ontologies'],
  auth: 'credential',
  write: true,
  bodyLimit: 16 * 1024 * 1024,
  params: ObjectTypeParams,
  query: z.strictObject({ mode: ImportMode.default('create') }),
  body: ImportObjectsRequest,
  response: { status: 200, description: 'How many objects were created and modified.', schema: ImportObjectsResponse },
  errors: [
    ...READ_ERRORS,
    'forbidden',
    'invalid_payload',
    'payload_too_large',
    'object_type_not_found',
    'conflict',
    'object_type_read_only',
  ],
  handler: async ({ ctx, db, deps, principal, params, query, body }) => ({
    data: await importObjects({ db, clock: deps.clock }, principal, {
      ...params,
      mode: query.mode,
      objects: body,
      app: parseAppHeader(ctx.get(APP_HEADER)),
    }),
  }),
});

export const ontologyRoutes = [
  listOntologiesRoute,
  getOntologyRoute,
  listObjectTypesRoute,
  getObjectTypeRoute,
  getObjectTypeSecurityRoute,
  setObjectTypeSecurityRoute,
  testObjectSecurityRoute,
  listOutgoingLinkTypesRoute,
  getOutgoingLinkTypeRoute,
  listObjectsRoute,
  getObjectRoute,
  searchObjectsRoute,
  aggregateObjectsRoute,
  editObjectsRoute,
  importObjectsRoute,
  listLinkedObjectsRoute,
  getLinkedObjectRoute,
  loadObjectSetRoute,
  aggregateObjectSetRoute,
  createTemporaryObjectSetRoute,
  getObjectSetRoute,
];
