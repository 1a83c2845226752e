import { z } from 'zod';
import { acceptAttachmentBytes, getAttachment, readAttachment, uploadAttachment } from '../../domain/attachments/index.ts';
import { getObjectAttachment, readObjectAttachment } from '../../domain/ontology/index.ts';
import {
  ATTACHMENT_LIMITS,
  Attachment,
  AttachmentMetadataResponse,
  AttachmentRid,
  UploadAttachmentQuery,
} from '../../schemas/attachments.ts';
import { MEDIA_LIMITS } from '../../schemas/media.ts';
import { ObjectPropertyParams } from '../../schemas/ontology.ts';
import { readBodyBytes } from '../http/read-json-body.ts';
import { defineRoute } from '../http/route.ts';
import { contentAnswer, contentOf, OBJECT_READ_ERRORS } from '../media/content.ts';

// Attachments (issue 30, item 3; shapes after Foundry's Ontologies attachments): uploaded on their
// own, linked to objects by an action parameter of type `attachment`, read through the object.

const ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'attachment_not_found'] as const;
const RidParams = z.strictObject({ attachmentRid: AttachmentRid });
const OBJECT_ATTACHMENT = '/api/v1/ontologies/{ontology}/objects/{objectType}/{primaryKey}/attachments/{property}';
const OBJECT_ERRORS = [...OBJECT_READ_ERRORS, 'attachment_not_found'] as const;
const CONTENT_DESCRIPTION =
  'Answered as media content is: one range (`Range: bytes=a-b`, `a-`, `-n`) 206 with Content-Range, past the end 416; a strong ETag ' +
  '(the SHA-256; If-None-Match: 304); Content-Disposition with the filename (attachment unless a plain image, audio, video, PDF or ' +
  'text), X-Content-Type-Options: nosniff and a sandbox Content-Security-Policy, so an uploaded HTML or SVG never runs.';

export const uploadAttachmentRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologies/attachments/upload',
  operationId: 'uploadAttachment',
  summary: 'Upload an attachment (the body is its bytes, Content-Type its media type)',
  description:
    `At most ${ATTACHMENT_LIMITS.bytes} bytes (attachment_size_exceeded_limit); above ${MEDIA_LIMITS.databaseItemBytes} bytes an S3 ` +
    'store is needed (media_upload_destination_not_configured). It belongs to the caller’s company and must be linked to an object ' +
    `(an action parameter of type attachment) within an hour, else it is removed; one attachment is linked to at most ` +
    `${ATTACHMENT_LIMITS.objects} objects. Whoever may apply actions may upload (never a viewer, never a read-only agent key).`,
  tags: ['ontologies'],
  auth: 'credential',
  write: true,
  query: UploadAttachmentQuery,
  binaryBody: { description: 'The file’s bytes; Content-Type its media type (none: application/octet-stream).' },
  response: { status: 200, description: 'The attachment (Foundry AttachmentV2).', schema: Attachment },
  errors: [
    'unauthorized',
    'invalid_session',
    'forbidden',
    'invalid_payload',
    'company_required',
    'attachment_size_exceeded_limit',
    'media_upload_destination_not_configured',
    'rate_limited',
  ],
  // Bytes are read and stored before the transaction opens (the content store is not transactional).
  prepare: ({ deps, principal, query, ctx, dryRun }) =>
    acceptAttachmentBytes(
      deps,
      principal,
      { ...query, contentType: ctx.get('content-type') || undefined },
      {
        declaredBytes: ctx.get('content-length') ? Number(ctx.get('content-length')) : undefined,
        read: (limit) => readBodyBytes(ctx, limit),
      },
      dryRun,
    ),
  handler: async ({ db, deps, principal, query, ctx, prepared }) => ({
    data: await uploadAttachment(
      { db, clock: deps.clock },
      principal,
      { ...query, contentType: ctx.get('content-type') || undefined },
      prepared,
    ),
  }),
});

export const getAttachmentRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/attachments/{attachmentRid}',
  operationId: 'getAttachment',
  summary: 'An attachment’s filename, size and media type, by rid',
  description: 'By rid for its uploader and the company’s developers; others read it through the objects that hold it.',
  tags: ['ontologies'],
  auth: 'credential',
  params: RidParams,
  response: { status: 200, description: 'The attachment.', schema: Attachment },
  errors: [...ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: await getAttachment(deps, principal, params.attachmentRid) }),
});

export const readAttachmentRoute = defineRoute({
  method: 'get',
  path: '/api/v1/ontologies/attachments/{attachmentRid}/content',
  operationId: 'readAttachment',
  summary: 'An attachment’s bytes, by rid, with HTTP range requests and a strong ETag',
  description: `For its uploader and the company’s developers. ${CONTENT_DESCRIPTION}`,
  tags: ['ontologies'],
  auth: 'credential',
  params: RidParams,
  envelope: false,
  responseType: 'application/octet-stream',
  response: { status: 200, description: 'The bytes, as their media type.', schema: z.instanceof(Buffer) },
  errors: [...ERRORS],
  handler: async ({ deps, principal, params, ctx }) =>
    contentAnswer(contentOf(await readAttachment(deps, principal, params.attachmentRid)), ctx),
});

export const getObjectAttachmentRoute = defineRoute({
  method: 'get',
  path: OBJECT_ATTACHMENT,
  operationId: 'listPropertyAttachments',
  summary: 'The attachment an object’s attachment property holds',
  description:
    'Read as the object is (the caller’s data access, markings, object security): an object the caller cannot read is object_not_found.',
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectPropertyParams,
  response: { status: 200, description: 'Foundry AttachmentMetadataResponse (type single).', schema: AttachmentMetadataResponse },
  errors: [...OBJECT_ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: await getObjectAttachment(deps, principal, params) }),
});

export const readObjectAttachmentRoute = defineRoute({
  method: 'get',
  path: `${OBJECT_ATTACHMENT}/content`,
  operationId: 'readPropertyAttachment',
  summary: 'The bytes of the attachment an object’s attachment property holds',
  description: `Read as the object is. ${CONTENT_DESCRIPTION}`,
  tags: ['ontologies'],
  auth: 'credential',
  params: ObjectPropertyParams,
  envelope: false,
  responseType: 'application/octet-stream',
  response: { status: 200, description: 'The bytes, as their media type.', schema: z.instanceof(Buffer) },
  errors: [...OBJECT_ERRORS],
  handler: async ({ deps, principal, params, ctx }) => contentAnswer(contentOf(await readObjectAttachment(deps, principal, params)), ctx),
});

export const attachmentRoutes = [
  uploadAttachmentRoute,
  getAttachmentRoute,
  readAttachmentRoute,
  getObjectAttachmentRoute,
  readObjectAttachmentRoute,
];
