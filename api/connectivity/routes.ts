import { z } from 'zod';
import {
  createConnection,
  createSync,
  deleteConnection,
  deleteSync,
  getConnection,
  getSync,
  listConnections,
  listSyncs,
  requestPlatformSync,
  testConnection,
} from '../../domain/connectivity/index.ts';
import { Namespace } from '../../schemas/app-log.ts';
import {
  ConnectionId,
  ConnectionTestResult,
  ConnectionView,
  CreateConnectionInput,
  CreateSyncInput,
  PlatformSyncRequested,
  SyncId,
  SyncView,
} from '../../schemas/connectivity.ts';
import { OntologyParams } from '../../schemas/ontology.ts';
import { defineRoute } from '../http/route.ts';

// Data connections and syncs (spec G, `/api/v1/connectivity/**`; shapes ours): a company's
// developers connect its PostgreSQL, S3 buckets and HTTPS JSON endpoints and sync them into object
// types. Secrets are write-only: answers say `hasSecret`, never what it is.
const ERRORS = ['unauthorized', 'forbidden', 'invalid_path', 'organization_not_found'] as const;
const Ns = z.object({ namespace: Namespace });
const ConnectionParams = Ns.extend({ connectionId: ConnectionId });
const SyncParams = Ns.extend({ syncId: SyncId });
const Deleted = z.object({ deleted: z.literal(true) });

export const createConnectionRoute = defineRoute({
  method: 'post',
  path: '/api/v1/connectivity/{namespace}/connections',
  operationId: 'createDataConnection',
  summary: 'Connect a source: PostgreSQL (a connection string), S3 (bucket and prefix) or an HTTPS JSON endpoint',
  description:
    'The connection string, S3 secret key and Authorization value are sealed with AES-256-GCM under the service secret key, ' +
    'bound to the connection (SVC_SECRET_KEYS), and never returned or logged. Where a source may be: public addresses only unless the operator allows private networks.',
  tags: ['connectivity'],
  auth: 'credential',
  write: true,
  params: Ns,
  body: CreateConnectionInput,
  response: { status: 201, description: 'The connection (no secret).', schema: ConnectionView },
  errors: [...ERRORS, 'invalid_payload', 'connection_name_exists'],
  handler: async ({ db, deps, principal, params, body }) => ({
    data: await createConnection(db, deps.connectivity, principal, params.namespace, body),
  }),
});

export const listConnectionsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/connectivity/{namespace}/connections',
  operationId: 'listDataConnections',
  summary: 'The company’s data connections by name',
  tags: ['connectivity'],
  auth: 'credential',
  params: Ns,
  response: { status: 200, description: 'Connections (no secrets).', schema: z.object({ data: z.array(ConnectionView) }) },
  errors: [...ERRORS],
  handler: async ({ db, principal, params }) => ({ data: await listConnections(db, principal, params.namespace) }),
});

export const getConnectionRoute = defineRoute({
  method: 'get',
  path: '/api/v1/connectivity/{namespace}/connections/{connectionId}',
  operationId: 'getDataConnection',
  summary: 'One data connection',
  tags: ['connectivity'],
  auth: 'credential',
  params: ConnectionParams,
  response: { status: 200, description: 'The connection (no secret).', schema: ConnectionView },
  errors: [...ERRORS, 'connection_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await getConnection(db, principal, params.namespace, params.connectionId) }),
});

export const deleteConnectionRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/connectivity/{namespace}/connections/{connectionId}',
  operationId: 'deleteDataConnection',
  summary: 'Delete a data connection and its secret (not while syncs read from it)',
  tags: ['connectivity'],
  auth: 'credential',
  write: true,
  params: ConnectionParams,
  response: { status: 200, description: 'Deleted.', schema: Deleted },
  errors: [...ERRORS, 'connection_not_found', 'connection_in_use'],
  handler: async ({ db, principal, params }) => ({ data: await deleteConnection(db, principal, params.namespace, params.connectionId) }),
});

export const testConnectionRoute = defineRoute({
  method: 'post',
  path: '/api/v1/connectivity/{namespace}/connections/{connectionId}/test',
  operationId: 'testDataConnection',
  summary: 'Reach the source once: PostgreSQL connects, S3 lists the prefix, HTTPS fetches the endpoint',
  description:
    'An unreachable or refusing source answers `ok: false` with the reason (never a secret); a non-public address is refused (connection_address_refused).',
  tags: ['connectivity'],
  auth: 'credential',
  params: ConnectionParams,
  response: { status: 200, description: 'What the test found.', schema: ConnectionTestResult },
  errors: [...ERRORS, 'connection_not_found', 'connection_address_refused', 'invalid_payload'],
  handler: async ({ db, deps, principal, params }) => ({
    data: await testConnection(db, deps.connectivity, principal, params.namespace, params.connectionId),
  }),
});

export const createSyncRoute = defineRoute({
  method: 'post',
  path: '/api/v1/connectivity/{namespace}/syncs',
  operationId: 'createDataSync',
  summary: 'Sync a source table, file pattern or endpoint into an object type (on demand through builds, or on a schedule)',
  description:
    'The mapping names the object type’s properties and the source column of each; the primary key must be mapped (objects are upserted by it). ' +
    'Incremental PostgreSQL syncs read rows after the last committed (cursorColumn, key); incremental S3 syncs read files named after the last one read. ' +
    'A `schedule` (cron, UTC) becomes a Temporal Schedule whose runs each make a build of the sync.',
  tags: ['connectivity'],
  auth: 'credential',
  write: true,
  params: Ns,
  body: CreateSyncInput,
  response: { status: 201, description: 'The sync.', schema: SyncView },
  errors: [...ERRORS, 'invalid_payload', 'connection_not_found', 'object_type_not_found', 'connection_name_exists'],
  handler: async ({ db, principal, params, body }) => ({ data: await createSync(db, principal, params.namespace, body) }),
});

export const listSyncsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/connectivity/{namespace}/syncs',
  operationId: 'listDataSyncs',
  summary: 'The company’s syncs by name, each with its committed incremental cursor',
  tags: ['connectivity'],
  auth: 'credential',
  params: Ns,
  response: { status: 200, description: 'Syncs.', schema: z.object({ data: z.array(SyncView) }) },
  errors: [...ERRORS],
  handler: async ({ db, principal, params }) => ({ data: await listSyncs(db, principal, params.namespace) }),
});

export const getSyncRoute = defineRoute({
  method: 'get',
  path: '/api/v1/connectivity/{namespace}/syncs/{syncId}',
  operationId: 'getDataSync',
  summary: 'One sync',
  tags: ['connectivity'],
  auth: 'credential',
  params: SyncParams,
  response: { status: 200, description: 'The sync.', schema: SyncView },
  errors: [...ERRORS, 'sync_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await getSync(db, principal, params.namespace, params.syncId) }),
});

export const deleteSyncRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/connectivity/{namespace}/syncs/{syncId}',
  operationId: 'deleteDataSync',
  summary: 'Delete a sync and its schedule (the objects it wrote stay)',
  tags: ['connectivity'],
  auth: 'credential',
  write: true,
  params: SyncParams,
  response: { status: 200, description: 'Deleted.', schema: Deleted },
  errors: [...ERRORS, 'sync_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await deleteSync(db, principal, params.namespace, params.syncId) }),
});

export const syncPlatformDataSourceRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/{ontology}/datasources/platform/sync',
  operationId: 'syncPlatformDataSource',
  summary: 'Copy the company’s platform data (members, apps, daily app log counts) into its read-only platform.* object types',
  description:
    'Starts the company’s platform sync, a Temporal workflow (kind platform-sync), after the request commits; a request while one runs joins it. ' +
    'The run makes or updates the types platform.Member, platform.App and platform.AppLogDay, copies every row page by page through the data layer’s one writer ' +
    '(change triggers, subscriptions and the edits history see it), and deletes the objects whose source is gone. No secret is copied: no password hash, key, token or lock state. ' +
    'The types are read-only: edits, imports, actions and definitions of platform.* types answer 409 object_type_read_only. ' +
    'The ontology is the company’s cell id (or its ontology rid).',
  tags: ['connectivity'],
  auth: 'credential',
  write: true,
  params: OntologyParams,
  response: { status: 202, description: 'The run was asked for.', schema: PlatformSyncRequested },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'organization_not_found'],
  handler: async ({ db, principal, params }) => ({
    status: 202,
    data: await requestPlatformSync(db, principal, params.ontology),
  }),
});

export const connectivityRoutes = [
  createConnectionRoute,
  listConnectionsRoute,
  getConnectionRoute,
  deleteConnectionRoute,
  testConnectionRoute,
  createSyncRoute,
  listSyncsRoute,
  getSyncRoute,
  deleteSyncRoute,
  syncPlatformDataSourceRoute,
];
