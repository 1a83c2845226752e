import { z } from 'zod';
import { getObject } from '../../domain/ontology/get-object.ts';
import { getObjectType } from '../../domain/ontology/get-object-type.ts';
import { getOutgoingLinkType, listOutgoingLinkTypes } from '../../domain/ontology/list-link-types.ts';
import { listObjectTypes } from '../../domain/ontology/list-object-types.ts';
import { getOntology, listOntologies } from '../../domain/ontology/list-ontologies.ts';
import {
  LinkApiName,
  LinkTypeSide,
  ObjectType,
  ObjectTypeParams,
  Ontology,
  OntologyObject,
  OntologyParams,
  PrimaryKeyParam,
  PropertyApiName,
} from '../../schemas/ontology.ts';
import { defineRoute } from '../http/route.ts';

// The ontology read routes (Foundry Ontologies v2 shapes under /api/v1). Keys, web sessions and
// app tickets (for their own app) are accepted; what a caller may read comes from
// domain/ontology/data-access.ts, and anything else does not exist for it (404).

const READER = { accepts: ['key', 'session', 'ticket'], currentApp: true } as const;
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
  auth: READER,
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
  auth: READER,
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
  auth: READER,
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
  auth: READER,
  params: ObjectTypeParams,
  response: { status: 200, description: 'The object type (ObjectTypeV2 and its version).', schema: ObjectType },
  errors: [...READ_ERRORS, 'object_type_not_found'],
  handler: async ({ deps, principal, params }) => ({ data: await getObjectType(deps, principal, params.ontology, params.objectType) }),
});

export const listOutgoingLinkTypesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/objectTypes/{objectType}/outgoingLinkTypes',
  operationId: 'listOutgoingLinkTypes',
  summary: 'The link types of an object type, as seen from it',
  tags: ['ontologies'],
  auth: READER,
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
  auth: READER,
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
  auth: READER,
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

export const ontologyRoutes = [
  listOntologiesRoute,
  getOntologyRoute,
  listObjectTypesRoute,
  getObjectTypeRoute,
  listOutgoingLinkTypesRoute,
  getOutgoingLinkTypeRoute,
  getObjectRoute,
];
