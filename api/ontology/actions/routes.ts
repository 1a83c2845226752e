import { z } from 'zod';
import { callWritebackWebhook } from '../../../domain/connectivity/index.ts';
import {
  applyAction,
  applyActionBatch,
  defineActionTypes,
  getActionType,
  listActionTypes,
  listEditsHistory,
  parseAppHeader,
  writeToBranch,
} from '../../../domain/ontology/index.ts';
import { CellId } from '../../../schemas/identity.ts';
import { ObjectTypeParams, OntologyParams } from '../../../schemas/ontology.ts';
import {
  ActionParams,
  ActionType,
  ApplyActionBatchRequest,
  ApplyActionBatchResponse,
  ApplyActionRequest,
  ApplyActionResponse,
  BranchQuery,
  BranchWriteResult,
  DefineActionTypesResult,
  EditsHistoryRequest,
  EditsHistoryResponse,
} from '../../../schemas/ontology-actions.ts';
import { defineRoute } from '../../http/route.ts';

// Action types, action runs and edits history (Foundry Ontologies v2 shapes under /api/v1), and
// the developers' action type definitions. Who may run what: domain/ontology/data-access.ts.

const READ_ERRORS = ['unauthorized', 'invalid_session', 'invalid_path', 'ontology_not_found'] as const;
const RUN_ERRORS = [
  ...READ_ERRORS,
  'forbidden',
  'invalid_payload',
  'action_type_not_found',
  'action_invalid',
  'rev_mismatch',
  'object_not_found',
  'conflict',
  'app_not_found',
  'object_type_read_only',
  'webhook_failed',
] as const;
const APP_HEADER_NOTE =
  'The action/<Action> record goes to the app log of the app the caller acts through: a ticket’s own app, or the app named ' +
  'by the header `x-svc-app: <namespace>/<slug>` (an app of the ontology’s company); without either, no app log record.';

export const listActionTypesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/actionTypes',
  operationId: 'listActionTypes',
  summary: 'The action types the caller may run',
  tags: ['ontologies'],
  auth: 'credential',
  params: OntologyParams,
  response: {
    status: 200,
    description: 'ActionTypeV2 by apiName, with criteria, edit templates and version.',
    schema: z.object({ data: z.array(ActionType) }),
  },
  errors: [...READ_ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: { data: await listActionTypes(deps, principal, params.ontology) } }),
});

export const getActionTypeRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/{ontology}/actionTypes/{action}',
  operationId: 'getActionType',
  summary: 'One action type the caller may run',
  tags: ['ontologies'],
  auth: 'credential',
  params: ActionParams,
  response: { status: 200, description: 'The action type.', schema: ActionType },
  errors: [...READ_ERRORS, 'action_type_not_found'],
  handler: async ({ deps, principal, params }) => ({ data: await getActionType(deps, principal, params.ontology, params.action) }),
});

export const applyActionRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/actions/{action}/apply',
  operationId: 'applyAction',
  summary: 'Validate, and unless VALIDATE_ONLY execute, one action',
  description:
    'A run that is not valid is answered 200 with validation.result INVALID (Foundry) and writes nothing. ifRev (ours) is ' +
    'checked before validation: 409 rev_mismatch. Executed edits go through the one writer (edits history with the action ' +
    `type's RID, change events). ${APP_HEADER_NOTE}`,
  tags: ['ontologies'],
  auth: 'credential',
  write: true,
  params: ActionParams,
  body: ApplyActionRequest,
  response: { status: 200, description: 'The validation, and the edits when returnEdits is ALL.', schema: ApplyActionResponse },
  errors: [...RUN_ERRORS],
  handler: async ({ deps, db, principal, params, body, ctx, dryRun }) => ({
    data: await applyAction(
      {
        db,
        clock: deps.clock,
        writeback: dryRun ? 'dry-run' : (call) => callWritebackWebhook(db, deps.connectivity, call),
      },
      { principal, app: parseAppHeader(ctx.get('x-svc-app')) },
      params.ontology,
      params.action,
      body,
    ),
  }),
});

export const applyActionBatchRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/actions/{action}/applyBatch',
  operationId: 'applyActionBatch',
  summary: 'Execute up to 20 runs of one action, all or none',
  description: `Every run is validated and executed in one transaction; one invalid run is 422 action_invalid (details.index) and nothing is written. One app log record for the batch. ${APP_HEADER_NOTE}`,
  tags: ['ontologies'],
  auth: 'credential',
  write: true,
  params: ActionParams,
  body: ApplyActionBatchRequest,
  response: { status: 200, description: 'The operation id, and the edits when returnEdits is ALL.', schema: ApplyActionBatchResponse },
  errors: [...RUN_ERRORS],
  handler: async ({ deps, db, principal, params, body, ctx }) => ({
    data: await applyActionBatch(
      { db, clock: deps.clock },
      { principal, app: parseAppHeader(ctx.get('x-svc-app')) },
      params.ontology,
      params.action,
      body,
    ),
  }),
});

export const editsHistoryRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/objectTypes/{objectType}/editsHistory',
  operationId: 'listEditsHistory',
  summary: 'The edits of an object type, newest first (optionally of one object)',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectTypeParams,
  body: EditsHistoryRequest,
  response: { status: 200, description: 'One page (default 100) and the token of the next.', schema: EditsHistoryResponse },
  errors: [...READ_ERRORS, 'invalid_payload', 'object_type_not_found'],
  handler: async ({ deps, principal, params, body }) => ({
    data: await listEditsHistory(deps, principal, params.ontology, params.objectType, body),
  }),
});

export const defineActionTypesRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/semantic/{namespace}/actionTypes',
  operationId: 'defineActionTypes',
  summary: 'Define action types in one batch (versioned)',
  description:
    'Each action type listed is created or changed (a new version); the others stay. Parameters are property types or ' +
    '{type: objectReference, objectType}; submissionCriteria are {condition, failureMessage?} with conditions ' +
    '{parameter, property?, op, value} combined by {all}, {any}, {not}; edits are templates createObject, modifyObject, ' +
    'deleteObject, addLink, removeLink whose values come from {parameter} or {value}. Every name must exist and every value ' +
    'fit its property, else 422 definition_invalid with each path. Agent authors get 409 branch_required on the main ' +
    'definition and write to a branch with ?branch=.',
  tags: ['semantic'],
  auth: 'credential',
  write: true,
  bodyLimit: 1024 * 1024,
  params: z.strictObject({ namespace: CellId }),
  // Checked by the use case, so a definition problem is 422 definition_invalid (spec) rather than 400.
  body: z.strictObject({ actionTypes: z.array(z.unknown()).max(100) }),
  response: {
    status: 200,
    description: 'What each definition did; with ?branch=, the write waiting on the branch.',
    schema: z.union([DefineActionTypesResult, BranchWriteResult]),
  },
  errors: [
    'unauthorized',
    'forbidden',
    'invalid_path',
    'invalid_payload',
    'organization_not_found',
    'ontology_not_found',
    'definition_invalid',
    'branch_required',
    'branch_not_found',
    'conflict',
  ],
  query: BranchQuery,
  handler: async ({ deps, db, principal, params, query, body }) => ({
    data:
      query.branch === undefined
        ? await defineActionTypes({ db, clock: deps.clock }, principal, params.namespace, body)
        : await writeToBranch({ db, clock: deps.clock }, principal, params.namespace, query.branch, 'actionTypes', body),
  }),
});

export const ontologyActionRoutes = [
  listActionTypesRoute,
  getActionTypeRoute,
  applyActionRoute,
  applyActionBatchRoute,
  editsHistoryRoute,
  defineActionTypesRoute,
];
