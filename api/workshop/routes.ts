import { z } from 'zod';
import { DomainError } from '../../domain/errors.ts';
import { ROUTE_ACCESS } from '../../domain/policy/index.ts';
import {
  createModule,
  deleteModule,
  evaluateModulePage,
  getModule,
  getModuleVersion,
  listModules,
  listModuleVersions,
  publishModuleVersion,
  saveModuleVersion,
  watchModulePage,
} from '../../domain/workshop/index.ts';
import {
  AutoRefreshQuery,
  CreateModuleInput,
  EvaluateInput,
  EvaluateResult,
  ModuleRid,
  ModuleView,
  moduleJsonSchema,
  SaveVersionInput,
  VersionSummary,
  VersionView,
  WORKSHOP_SCHEMA_PATH,
} from '../../schemas/workshop.ts';
import { SSE_HEADERS } from '../http/event-stream.ts';
import { defineRoute } from '../http/route.ts';
import { autoRefreshStream } from './stream.ts';

// Application modules (docs/api/workshop.md): generic resources `ri.workshop.svc.module.<uuid>`
// whose role decides inside (domain/policy workshop.*): any role opens the published version,
// Editors save versions, Owners publish and delete.

const BASE = '/api/v1/workshop/modules';
const ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'workshop_module_not_found'] as const;
const ModuleParams = z.strictObject({ rid: ModuleRid });
const VersionParams = ModuleParams.extend({ n: z.coerce.number().int().min(1).max(1_000_000) });
const TAGS = ['workshop'];

export const workshopSchemaRoute = defineRoute({
  method: 'get',
  path: WORKSHOP_SCHEMA_PATH,
  operationId: 'getWorkshopModuleSchema',
  summary: 'The application module definition’s JSON Schema (draft 2020-12)',
  tags: TAGS,
  auth: 'none',
  envelope: false,
  response: { status: 200, description: 'The JSON Schema (not wrapped in the envelope).', schema: z.record(z.string(), z.unknown()) },
  async handler({ deps }) {
    return { data: moduleJsonSchema(`${deps.addresses().baseUrl}${WORKSHOP_SCHEMA_PATH}`) };
  },
});

export const createModuleRoute = defineRoute({
  method: 'post',
  path: BASE,
  operationId: 'createWorkshopModule',
  summary: 'Create an application module with its definition as version 1 (unpublished)',
  description:
    'The company’s developers create modules and are their Owners. The definition is checked against the company’s object ' +
    'and action types as the caller sees them (422 definition_invalid with each path). `access: company` (the default) ' +
    'grants the company Viewer: its members open the published version.',
  tags: TAGS,
  auth: 'credential',
  write: true,
  body: CreateModuleInput,
  response: { status: 201, description: 'The new module.', schema: ModuleView },
  errors: ['unauthorized', 'invalid_session', 'forbidden', 'organization_not_found', 'definition_invalid'],
  handler: async ({ db, deps, principal, body }) => ({ status: 201, data: await createModule({ db, clock: deps.clock }, principal, body) }),
});

export const listModulesRoute = defineRoute({
  method: 'get',
  path: BASE,
  operationId: 'listWorkshopModules',
  summary: 'Modules the caller has a role on (its companies’ and those shared with it), by name',
  tags: TAGS,
  auth: 'credential',
  response: { status: 200, description: 'The modules.', schema: z.object({ data: z.array(ModuleView) }) },
  errors: ['unauthorized', 'invalid_session'],
  handler: async ({ deps, principal }) => ({ data: { data: await listModules(deps, principal) } }),
});

export const getModuleRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{rid}`,
  operationId: 'getWorkshopModule',
  summary: 'A module: its name, the caller’s role, the published and (Editors, Owners) latest version',
  tags: TAGS,
  auth: 'credential',
  params: ModuleParams,
  response: { status: 200, description: 'The module (404 when the caller has no role on it).', schema: ModuleView },
  errors: [...ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: await getModule(deps, principal, params.rid) }),
});

export const deleteModuleRoute = defineRoute({
  method: 'delete',
  path: `${BASE}/{rid}`,
  operationId: 'deleteWorkshopModule',
  summary: 'Delete a module with its versions and grants (Owners)',
  tags: TAGS,
  auth: 'credential',
  write: true,
  params: ModuleParams,
  response: { status: 200, description: 'The deleted module.', schema: z.object({ rid: z.string(), deleted: z.literal(true) }) },
  errors: [...ERRORS],
  handler: async ({ db, deps, principal, params }) => ({ data: await deleteModule({ db, clock: deps.clock }, principal, params.rid) }),
});

export const listVersionsRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{rid}/versions`,
  operationId: 'listWorkshopModuleVersions',
  summary: 'The module’s versions, newest first (Viewers: the published one only)',
  tags: TAGS,
  auth: 'credential',
  params: ModuleParams,
  response: { status: 200, description: 'The versions.', schema: z.object({ data: z.array(VersionSummary) }) },
  errors: [...ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: { data: await listModuleVersions(deps, principal, params.rid) } }),
});

export const saveVersionRoute = defineRoute({
  method: 'post',
  path: `${BASE}/{rid}/versions`,
  operationId: 'saveWorkshopModuleVersion',
  summary: 'Save a definition as the module’s next numbered version (Owners and Editors)',
  description: 'Checked against the company’s object and action types as the caller sees them (422 definition_invalid with each path).',
  tags: TAGS,
  auth: 'credential',
  write: true,
  params: ModuleParams,
  body: SaveVersionInput,
  response: { status: 201, description: 'The new version.', schema: VersionView },
  errors: [...ERRORS, 'definition_invalid'],
  handler: async ({ db, deps, principal, params, body }) => ({
    status: 201,
    data: await saveModuleVersion({ db, clock: deps.clock }, principal, params.rid, body.definition),
  }),
});

export const getVersionRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{rid}/versions/{n}`,
  operationId: 'getWorkshopModuleVersion',
  summary: 'One version with its definition (Viewers: the published one only)',
  tags: TAGS,
  auth: 'credential',
  params: VersionParams,
  response: { status: 200, description: 'The version.', schema: VersionView },
  errors: [...ERRORS, 'workshop_version_not_found'],
  handler: async ({ deps, principal, params }) => ({ data: await getModuleVersion(deps, principal, params.rid, params.n) }),
});

export const publishVersionRoute = defineRoute({
  method: 'post',
  path: `${BASE}/{rid}/versions/{n}/publish`,
  operationId: 'publishWorkshopModuleVersion',
  summary: 'Publish a version: the one members open (Owners); checked again against the ontology',
  tags: TAGS,
  auth: 'credential',
  write: true,
  params: VersionParams,
  response: { status: 200, description: 'The published version.', schema: VersionView },
  errors: [...ERRORS, 'workshop_version_not_found', 'definition_invalid'],
  handler: async ({ db, deps, principal, params }) => ({
    data: await publishModuleVersion({ db, clock: deps.clock }, principal, params.rid, params.n),
  }),
});

export const evaluateRoute = defineRoute({
  method: 'post',
  path: `${BASE}/{rid}/evaluate`,
  operationId: 'evaluateWorkshopModule',
  summary: 'Compute a page’s widgets for the caller, with its own permissions (objects, aggregates, action forms)',
  description:
    'Every read runs as the caller through the data layer (readable types, object security, markings): the answer never ' +
    'holds an object or property the caller could not read. A widget the caller cannot compute answers `error` ' +
    '(e.g. object_type_not_found); a table continues with `pageTokens`. Computes only: nothing is written.',
  tags: TAGS,
  auth: 'credential',
  params: ModuleParams,
  body: EvaluateInput,
  response: { status: 200, description: 'The page’s widgets.', schema: EvaluateResult },
  errors: [...ERRORS, 'workshop_version_not_found', 'workshop_page_not_found', 'invalid_payload'],
  handler: async ({ deps, principal, params, body }) => ({ data: await evaluateModulePage(deps, principal, params.rid, body) }),
});

const LastEventId = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number);

export const autoRefreshRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{rid}/autoRefresh`,
  operationId: 'autoRefreshWorkshopModule',
  summary: 'A page’s auto-refresh as server-sent events: `ready`, `refresh {seq, objectTypes}`, `reconnect`, `end`',
  description:
    '`refresh` names the changed object types the page shows (no object content), at most one per the page’s ' +
    '`autoRefresh.intervalSeconds` (at least 10): evaluate the page again. Every event’s `id` is the sequence number the ' +
    'client has everything up to; after about 280 seconds `reconnect {after}` ends the connection: connect again with ' +
    '`after` (or `Last-Event-ID`) and changes made meanwhile arrive as one refresh. 409 auto_refresh_not_enabled when the ' +
    'page has auto-refresh off. The credential and access are checked again every few seconds; a refusal (401, 403, 404, ' +
    '409, 429 quota_exhausted) sends `end {code, status, message}` and ends the stream: clients must not reconnect after it.',
  tags: TAGS,
  auth: 'credential',
  envelope: false,
  params: ModuleParams,
  query: AutoRefreshQuery,
  response: { status: 200, description: 'text/event-stream', schema: z.string() },
  errors: [...ERRORS, 'invalid_payload', 'workshop_version_not_found', 'workshop_page_not_found', 'auto_refresh_not_enabled'],
  async handler({ deps, principal, params, query, ctx }) {
    const hub = deps.ontologyChanges;
    if (!hub) throw new DomainError('service_unavailable', 'This process serves no event streams.');
    const watched = await watchModulePage(deps, principal, params.rid, query);
    // A browser's EventSource reconnects with the original URL and Last-Event-ID: the header is the later point.
    const lastEventId = LastEventId.safeParse(ctx.get('last-event-id')).data;
    return {
      data: autoRefreshStream({
        ctx,
        deps,
        hub,
        access: ROUTE_ACCESS.autoRefreshWorkshopModule!,
        rid: params.rid,
        query: { ...query, version: watched.version },
        watched,
        after: lastEventId ?? query.after,
      }) as unknown as string,
      headers: SSE_HEADERS,
    };
  },
});

export const workshopRoutes = [
  workshopSchemaRoute,
  createModuleRoute,
  listModulesRoute,
  getModuleRoute,
  deleteModuleRoute,
  listVersionsRoute,
  saveVersionRoute,
  getVersionRoute,
  publishVersionRoute,
  evaluateRoute,
  autoRefreshRoute,
];
