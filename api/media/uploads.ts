import { z } from 'zod';
import {
  acceptUploadPart,
  completeMediaUpload,
  createMediaUpload,
  deleteMediaUpload,
  putMediaUploadPart,
} from '../../domain/media/index.ts';
import { CreateMediaUploadInput, MEDIA_LIMITS, MediaUploadId, MediaUploadPartView, MediaUploadView } from '../../schemas/media.ts';
import { ObjectTypeParams, PropertyApiName } from '../../schemas/ontology.ts';
import { readBodyBytes } from '../http/read-json-body.ts';
import { defineRoute } from '../http/route.ts';

// Upload sessions into an object type's media property (issue 30; ours: Foundry uploads a media
// property's item in one request). Who may upload is who may edit the type's objects directly.

const PropertyParams = ObjectTypeParams.extend({ property: PropertyApiName });
const UploadParams = PropertyParams.extend({ uploadId: MediaUploadId });
const PartParams = UploadParams.extend({ partNumber: z.coerce.number().int().min(1).max(MEDIA_LIMITS.uploadParts) });
const UPLOADS = '/api/v1/ontologies/{ontology}/objectTypes/{objectType}/media/{property}/uploads';
const ERRORS = [
  'unauthorized',
  'invalid_session',
  'invalid_path',
  'forbidden',
  'ontology_not_found',
  'object_type_not_found',
  'property_not_found',
] as const;
const SESSION_ERRORS = [...ERRORS, 'media_upload_not_found', 'conflict'] as const;
const targetOf = (p: z.output<typeof PropertyParams>) => ({ ontology: p.ontology, objectType: p.objectType, property: p.property });

export const createMediaUploadRoute = defineRoute({
  method: 'post',
  path: UPLOADS,
  operationId: 'createMediaUpload',
  summary: 'Open an upload session into a media property (declared size and MIME type)',
  description:
    `Parts of at most ${MEDIA_LIMITS.uploadPartBytes} bytes are then put in any order, and completion assembles them into an item ` +
    `of the property’s media set (made at its first upload). Items up to ${MEDIA_LIMITS.uploadItemBytes} bytes; above ` +
    `${MEDIA_LIMITS.databaseItemBytes} bytes an S3 store is needed (media_upload_destination_not_configured).`,
  tags: ['media'],
  auth: 'credential',
  write: true,
  params: PropertyParams,
  body: CreateMediaUploadInput,
  response: { status: 201, description: 'The session, OPEN.', schema: MediaUploadView },
  errors: [...ERRORS, 'invalid_payload', 'media_upload_destination_not_configured'],
  handler: async ({ db, deps, principal, params, body }) => ({
    status: 201,
    data: await createMediaUpload({ db, clock: deps.clock, blobs: deps.blobs }, principal, targetOf(params), body),
  }),
});

export const putMediaUploadPartRoute = defineRoute({
  method: 'put',
  path: `${UPLOADS}/{uploadId}/parts/{partNumber}`,
  operationId: 'putMediaUploadPart',
  summary: 'Put one part of an upload session (the body is its bytes)',
  description:
    `Parts are numbered from 1 (at most ${MEDIA_LIMITS.uploadParts}), each at most ${MEDIA_LIMITS.uploadPartBytes} bytes, sent in any ` +
    'order while the session is OPEN. Sending a number again replaces that part (the same bytes change nothing).',
  tags: ['media'],
  auth: 'credential',
  write: true,
  params: PartParams,
  binaryBody: { description: 'The part’s bytes.' },
  response: { status: 200, description: 'The part as stored.', schema: MediaUploadPartView },
  errors: [...SESSION_ERRORS, 'invalid_payload', 'payload_too_large', 'rate_limited'],
  // Bytes are read and stored before the transaction opens (the content store is not transactional).
  prepare: ({ deps, principal, params, ctx, dryRun }) =>
    acceptUploadPart(deps, principal, targetOf(params), params, (limit, each) => readBodyBytes(ctx, limit, each), dryRun),
  handler: async ({ db, deps, principal, params, prepared }) => ({
    status: 200,
    data: await putMediaUploadPart({ db, clock: deps.clock }, principal, targetOf(params), params, prepared),
  }),
});

export const completeMediaUploadRoute = defineRoute({
  method: 'post',
  path: `${UPLOADS}/{uploadId}/complete`,
  operationId: 'completeMediaUpload',
  summary: 'Complete an upload session: its parts are assembled into the property’s item by a workflow',
  description:
    'The parts must be 1..n without a gap and add up to the declared size (media_upload_incomplete; the session stays OPEN). The ' +
    'session is then COMPLETING: a Temporal workflow streams its parts in order into one item, hashes it (SHA-256), puts it into the ' +
    'property’s media set at `uploads/<uploadId>`, gives it to the object named at creation as the property’s value, and the session ' +
    'is COMPLETED with the mediaReference; or FAILED with `failure.code` (media_upload_part_missing, media_upload_size_mismatch, ' +
    'media_upload_part_corrupt, object_not_found). Completing a session past OPEN answers it as it is: poll with it.',
  tags: ['media'],
  auth: 'credential',
  write: true,
  params: UploadParams,
  response: { status: 200, description: 'The session: COMPLETING, or as it is when past OPEN.', schema: MediaUploadView },
  errors: [...SESSION_ERRORS, 'media_upload_incomplete'],
  handler: async ({ db, deps, principal, params }) => ({
    status: 200,
    data: await completeMediaUpload({ db, clock: deps.clock }, principal, targetOf(params), params.uploadId),
  }),
});

export const deleteMediaUploadRoute = defineRoute({
  method: 'delete',
  path: `${UPLOADS}/{uploadId}`,
  operationId: 'deleteMediaUpload',
  summary: 'Delete an upload session: its parts are dropped and it is PURGED',
  description:
    'A COMPLETED session is not deleted (409 conflict): its item is in the property’s media set; nor is a FAILED one. A COMPLETING ' +
    'one is: its assembly then attaches nothing. ' +
    'Deleting a PURGED one again answers the same. OPEN sessions untouched for ' +
    `${MEDIA_LIMITS.abandonedUploadHours} hours are purged by a schedule.`,
  tags: ['media'],
  auth: 'credential',
  write: true,
  params: UploadParams,
  response: { status: 200, description: 'The session, PURGED.', schema: MediaUploadView },
  errors: [...SESSION_ERRORS],
  handler: async ({ db, deps, principal, params }) => ({
    status: 200,
    data: await deleteMediaUpload({ db, clock: deps.clock }, principal, targetOf(params), params.uploadId),
  }),
});

export const mediaUploadRoutes = [createMediaUploadRoute, putMediaUploadPartRoute, completeMediaUploadRoute, deleteMediaUploadRoute];
