import { z } from 'zod';
import {
  bindStream,
  createStream,
  deleteStream,
  getStream,
  listRecords,
  listStreams,
  pushRecords,
  unbindStream,
} from '../../domain/streams/index.ts';
import {
  CreateStreamInput,
  PushRecordsInput,
  PushRecordsResult,
  PutStreamBindingInput,
  STREAM_LIMITS,
  StreamBindingParams,
  StreamBindingView,
  StreamParams,
  StreamRecordsPage,
  StreamRecordsQuery,
  StreamsParams,
  StreamView,
} from '../../schemas/streams.ts';
import { defineRoute } from '../http/route.ts';

// Data streams (spec G "Data streams"; issue 31): a company's named push sources of records, each
// with a record schema, bound to object types as their data source. docs/api/streams.md describes
// the whole interface.

const BASE = '/api/v1/developer/streams/{namespace}';
const ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'organization_not_found'] as const;
const Deleted = z.object({ deleted: z.literal(true) });

export const createStreamRoute = defineRoute({
  method: 'post',
  path: BASE,
  operationId: 'createStream',
  summary: 'Create a data stream: a name and the record schema (fields and their types)',
  description: `The company’s developers; at most ${STREAM_LIMITS.streamsPerCompany} streams per company and ${STREAM_LIMITS.fields} fields per stream.`,
  tags: ['streams'],
  auth: 'credential',
  write: true,
  params: StreamsParams,
  body: CreateStreamInput,
  response: { status: 201, description: 'The stream.', schema: StreamView },
  errors: [...ERRORS, 'invalid_payload', 'stream_name_exists', 'conflict'],
  handler: async ({ db, principal, params, body }) => ({ status: 201, data: await createStream(db, principal, params.namespace, body) }),
});

export const listStreamsRoute = defineRoute({
  method: 'get',
  path: BASE,
  operationId: 'listStreams',
  summary: 'The company’s data streams by name, each with the object types it is a data source of',
  tags: ['streams'],
  auth: 'credential',
  params: StreamsParams,
  response: { status: 200, description: 'The streams.', schema: z.object({ streams: z.array(StreamView) }) },
  errors: [...ERRORS],
  handler: async ({ db, principal, params }) => ({ data: { streams: await listStreams(db, principal, params.namespace) } }),
});

export const getStreamRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{name}`,
  operationId: 'getStream',
  summary: 'One data stream: its schema, bindings and last sequence number',
  tags: ['streams'],
  auth: 'credential',
  params: StreamParams,
  response: { status: 200, description: 'The stream.', schema: StreamView },
  errors: [...ERRORS, 'stream_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await getStream(db, principal, params.namespace, params.name) }),
});

export const deleteStreamRoute = defineRoute({
  method: 'delete',
  path: `${BASE}/{name}`,
  operationId: 'deleteStream',
  summary: 'Delete a data stream and its records (not while it is a data source: stream_in_use lists the object types)',
  tags: ['streams'],
  auth: 'credential',
  write: true,
  params: StreamParams,
  response: { status: 200, description: 'Deleted.', schema: Deleted },
  errors: [...ERRORS, 'stream_not_found', 'stream_in_use'],
  handler: async ({ db, principal, params }) => {
    await deleteStream(db, principal, params.namespace, params.name);
    return { data: { deleted: true as const } };
  },
});

export const putStreamBindingRoute = defineRoute({
  method: 'put',
  path: `${BASE}/{name}/bindings/{objectType}`,
  operationId: 'putStreamBinding',
  summary: 'Make the stream a data source of an object type (or change its mapping): records pushed from now on are written into it',
  description:
    'The mapping names the type’s properties and the stream field of each, the primary key included (its field must be required): ' +
    'objects are upserted by it through the data layer’s one writer. Each field’s type must fit its property’s. ' +
    `At most ${STREAM_LIMITS.bindingsPerStream} object types per stream; \`platform.*\` types are read-only.`,
  tags: ['streams'],
  auth: 'credential',
  write: true,
  params: StreamBindingParams,
  body: PutStreamBindingInput,
  response: { status: 200, description: 'The binding.', schema: StreamBindingView },
  errors: [...ERRORS, 'invalid_payload', 'stream_not_found', 'object_type_not_found', 'object_type_read_only', 'conflict'],
  handler: async ({ db, principal, params, body }) => ({
    data: await bindStream(db, principal, params.namespace, params.name, params.objectType, body),
  }),
});

export const deleteStreamBindingRoute = defineRoute({
  method: 'delete',
  path: `${BASE}/{name}/bindings/{objectType}`,
  operationId: 'deleteStreamBinding',
  summary: 'Stop writing the stream’s records into an object type (the objects written stay)',
  tags: ['streams'],
  auth: 'credential',
  write: true,
  params: StreamBindingParams,
  response: { status: 200, description: 'Deleted.', schema: Deleted },
  errors: [...ERRORS, 'stream_not_found', 'stream_binding_not_found'],
  handler: async ({ db, principal, params }) => {
    await unbindStream(db, principal, params.namespace, params.name, params.objectType);
    return { data: { deleted: true as const } };
  },
});

export const pushStreamRecordsRoute = defineRoute({
  method: 'post',
  path: `${BASE}/{name}/records`,
  operationId: 'pushStreamRecords',
  summary: 'Push records: checked against the schema, stored, and written into every bound object type, all or none',
  description:
    `At most ${STREAM_LIMITS.recordsPerPush} records and ${STREAM_LIMITS.pushBodyBytes / 1024} KiB per push. A record with an unknown field, a missing required field or a value ` +
    'of the wrong type refuses the whole push (invalid_payload, each problem by its path, e.g. `records[3].amount`), as does a value a bound type refuses. ' +
    'The company’s developers push, and the app tickets of its apps whose manifest lists the stream in `streams` (not a viewer’s); ' +
    'for another ticket the stream does not exist (404); a ticket’s push is recorded in its app’s log (action/data.stream). ' +
    `A stream keeps its newest ${STREAM_LIMITS.retainedRecords} records.`,
  tags: ['streams'],
  auth: 'credential',
  write: true,
  bodyLimit: STREAM_LIMITS.pushBodyBytes,
  params: StreamParams,
  body: PushRecordsInput,
  response: { status: 200, description: 'What was stored and written.', schema: PushRecordsResult },
  errors: [...ERRORS, 'invalid_payload', 'payload_too_large', 'stream_not_found', 'object_type_not_found', 'rate_limited'],
  handler: async ({ db, deps, principal, params, body }) => ({
    data: await pushRecords({ db, clock: deps.clock }, principal, params.namespace, params.name, body),
  }),
});

export const listStreamRecordsRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{name}/records`,
  operationId: 'listStreamRecords',
  summary: 'The stream’s kept records in sequence order, after a sequence number',
  tags: ['streams'],
  auth: 'credential',
  params: StreamParams,
  query: StreamRecordsQuery,
  response: { status: 200, description: 'A page of records.', schema: StreamRecordsPage },
  errors: [...ERRORS, 'invalid_payload', 'stream_not_found'],
  handler: async ({ db, principal, params, query }) => ({ data: await listRecords(db, principal, params.namespace, params.name, query) }),
});

export const streamRoutes = [
  createStreamRoute,
  listStreamsRoute,
  getStreamRoute,
  deleteStreamRoute,
  putStreamBindingRoute,
  deleteStreamBindingRoute,
  pushStreamRecordsRoute,
  listStreamRecordsRoute,
];
