import { z } from 'zod';
import { defineObjectTypes, listDefinitions, writeToBranch } from '../../../domain/ontology/index.ts';
import { CellId } from '../../../schemas/identity.ts';
import { DefineTypesResult, LinkType, ObjectType } from '../../../schemas/ontology.ts';
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

export const semanticRoutes = [listSemanticTypesRoute, defineSemanticTypesRoute];
