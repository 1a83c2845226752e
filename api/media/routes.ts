import { z } from 'zod';
import {
  abortMediaTransaction,
  acceptMediaBytes,
  commitMediaTransaction,
  createMediaSet,
  getMediaItemInfo,
  getMediaItemRidByPath,
  getMediaSet,
  getMediaTransformationStatus,
  listMediaItems,
  listMediaSets,
  openMediaTransaction,
  type PutMediaItemInput,
  putMediaItem,
  readMediaItem,
  readMediaTransformationResult,
  recordMediaTransformation,
  runMediaTransformation,
} from '../../domain/media/index.ts';
import {
  BranchSelector,
  CreateMediaSetInput,
  MEDIA_LIMITS,
  MediaItemRid,
  MediaItemView,
  MediaSetRid,
  MediaSetView,
  MediaTransactionId,
  MediaTransactionView,
  TRANSFORMABLE_IMAGE_TYPES,
  TransformationJobId,
  TransformationJobView,
  TransformMediaItemInput,
} from '../../schemas/media.ts';
import { readBodyBytes } from '../http/read-json-body.ts';
import { defineRoute } from '../http/route.ts';
import { contentAnswer, contentOf } from './content.ts';

// Media sets (issue 30; shapes after Foundry's MediaSets API): generic resources
// `ri.mio.svc.media-set.<uuid>` whose role decides inside (domain/policy media-set.*). Items are
// stored once by SHA-256 in the content store; a transaction makes its items visible at once.

const ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'media_set_not_found'] as const;
const SetParams = z.object({ mediaSetRid: MediaSetRid });
const ItemParams = SetParams.extend({ mediaItemRid: MediaItemRid });
const TransactionParams = SetParams.extend({ transactionId: MediaTransactionId });
const PageSize = z.coerce.number().int().min(1).max(MEDIA_LIMITS.pageSize.max).default(MEDIA_LIMITS.pageSize.default);
const PageToken = z.string().min(1).max(400).optional().meta({ description: 'Continue after the previous page (its `nextPageToken`).' });
// The path is checked by the use case (missing_media_item_path, media_item_path_invalid), not here.
const ItemPath = z
  .string()
  .max(4096)
  .optional()
  .meta({ description: 'The item’s path in the set, a safe relative path such as photos/2026/a.jpg.' });
const BRANCH_ERRORS = ['conflicting_media_set_identifiers', 'branch_not_found'] as const;
const Page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), nextPageToken: z.string().nullable() });

export const createMediaSetRoute = defineRoute({
  method: 'post',
  path: '/api/v1/mediasets',
  operationId: 'createMediaSet',
  summary: 'Create a media set (schema and allowed MIME types) with its main branch',
  description: 'The company’s developers create media sets and are their Owners; others get a role through the filesystem grants.',
  tags: ['media'],
  auth: 'credential',
  write: true,
  body: CreateMediaSetInput,
  response: { status: 201, description: 'The new media set.', schema: MediaSetView },
  errors: ['unauthorized', 'invalid_session', 'forbidden', 'organization_not_found'],
  handler: async ({ db, principal, body }) => ({ status: 201, data: await createMediaSet(db, principal, body) }),
});

export const listMediaSetsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/mediasets',
  operationId: 'listMediaSets',
  summary: 'Media sets the caller has a role on, by rid',
  tags: ['media'],
  auth: 'credential',
  query: z.strictObject({ pageSize: PageSize, pageToken: PageToken }),
  response: { status: 200, description: 'A page of media sets.', schema: Page(MediaSetView) },
  errors: ['unauthorized', 'invalid_session'],
  handler: async ({ deps, principal, query }) => ({ data: await listMediaSets(deps, principal, query) }),
});

export const getMediaSetRoute = defineRoute({
  method: 'get',
  path: '/api/v1/mediasets/{mediaSetRid}',
  operationId: 'getMediaSet',
  summary: 'A media set and its branches',
  tags: ['media'],
  auth: 'credential',
  params: SetParams,
  response: { status: 200, description: 'The media set (404 when the caller has no role on it).', schema: MediaSetView },
  errors: [...ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: await getMediaSet(deps, principal, params.mediaSetRid) }),
});

export const createTransactionRoute = defineRoute({
  method: 'post',
  path: '/api/v1/mediasets/{mediaSetRid}/transactions',
  operationId: 'createMediaSetTransaction',
  summary: 'Open a transaction on a branch (main unless named; a new branchName makes the branch)',
  description: 'One open transaction per branch: another is refused with media_set_open_transaction_already_exists.',
  tags: ['media'],
  auth: 'credential',
  write: true,
  params: SetParams,
  query: BranchSelector,
  response: { status: 201, description: 'The open transaction.', schema: MediaTransactionView },
  errors: [...ERRORS, ...BRANCH_ERRORS, 'media_set_open_transaction_already_exists'],
  handler: async ({ db, deps, principal, params, query }) => ({
    status: 201,
    data: await openMediaTransaction({ db, clock: deps.clock }, principal, params.mediaSetRid, query),
  }),
});

export const commitTransactionRoute = defineRoute({
  method: 'post',
  path: '/api/v1/mediasets/{mediaSetRid}/transactions/{transactionId}/commit',
  operationId: 'commitMediaSetTransaction',
  summary: 'Commit a transaction: its items become visible at once, replacing those at their paths',
  tags: ['media'],
  auth: 'credential',
  write: true,
  params: TransactionParams,
  response: { status: 200, description: 'The committed transaction.', schema: MediaTransactionView },
  errors: [...ERRORS, 'media_set_transaction_not_found', 'conflict'],
  handler: async ({ db, deps, principal, params }) => ({
    data: await commitMediaTransaction({ db, clock: deps.clock }, principal, params.mediaSetRid, params.transactionId),
  }),
});

export const abortTransactionRoute = defineRoute({
  method: 'post',
  path: '/api/v1/mediasets/{mediaSetRid}/transactions/{transactionId}/abort',
  operationId: 'abortMediaSetTransaction',
  summary: 'Abort a transaction: its items are deleted',
  tags: ['media'],
  auth: 'credential',
  write: true,
  params: TransactionParams,
  response: { status: 200, description: 'The aborted transaction.', schema: MediaTransactionView },
  errors: [...ERRORS, 'media_set_transaction_not_found', 'conflict'],
  handler: async ({ db, deps, principal, params }) => ({
    data: await abortMediaTransaction({ db, clock: deps.clock }, principal, params.mediaSetRid, params.transactionId),
  }),
});

const PutQuery = BranchSelector.extend({
  mediaItemPath: ItemPath,
  transactionId: MediaTransactionId.optional().meta({ description: 'Stage the item in this open transaction (visible at its commit).' }),
  mediaItemRid: MediaItemRid.optional().meta({
    description:
      'The new item’s rid, chosen by the caller (media_item_rid_already_exists when an item, in any set, has it); none: a new rid.',
  }),
});

const putInput = (params: { mediaSetRid: string }, query: z.output<typeof PutQuery>, contentType: string): PutMediaItemInput => {
  const { mediaItemPath, transactionId, mediaItemRid, ...selector } = query;
  return {
    mediaSetRid: params.mediaSetRid,
    path: mediaItemPath,
    contentType: contentType || undefined,
    selector,
    transactionId,
    mediaItemRid,
  };
};

export const putMediaItemRoute = defineRoute({
  method: 'post',
  path: '/api/v1/mediasets/{mediaSetRid}/items',
  operationId: 'putMediaItem',
  summary: 'Put an item at a path (the body is its bytes, Content-Type its MIME type)',
  description:
    `Without transactionId the item is visible at once and replaces the one at its path; with it, it is staged until the commit. ` +
    `At most ${MEDIA_LIMITS.putItemBytes} bytes (larger items: upload sessions); above ${MEDIA_LIMITS.databaseItemBytes} bytes an S3 store ` +
    `is needed (media_upload_destination_not_configured). At most ${MEDIA_LIMITS.itemsPerTransaction} items per transaction.`,
  tags: ['media'],
  auth: 'credential',
  write: true,
  params: SetParams,
  query: PutQuery,
  binaryBody: { description: 'The item’s bytes; Content-Type must be admitted by the set’s schema and allowed MIME types.' },
  response: { status: 201, description: 'The item.', schema: MediaItemView },
  errors: [
    ...ERRORS,
    ...BRANCH_ERRORS,
    'missing_media_item_path',
    'media_item_path_invalid',
    'invalid_media_item_schema',
    'media_upload_destination_not_configured',
    'media_set_transaction_not_found',
    'media_item_rid_already_exists',
    'payload_too_large',
    'rate_limited',
    'conflict',
  ],
  // Bytes are read and stored before the transaction opens (the content store is not transactional).
  prepare: ({ deps, principal, params, query, ctx, dryRun }) =>
    acceptMediaBytes(
      deps,
      principal,
      putInput(params, query, ctx.get('content-type')),
      {
        declaredBytes: ctx.get('content-length') ? Number(ctx.get('content-length')) : undefined,
        read: (limit) => readBodyBytes(ctx, limit),
      },
      dryRun,
    ),
  handler: async ({ db, deps, principal, params, query, ctx, prepared }) => ({
    status: 201,
    data: await putMediaItem({ db, clock: deps.clock }, principal, putInput(params, query, ctx.get('content-type')), prepared),
  }),
});

export const listMediaItemsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/mediasets/{mediaSetRid}/items',
  operationId: 'listMediaItems',
  summary: 'Committed items of a branch by path',
  tags: ['media'],
  auth: 'credential',
  params: SetParams,
  query: BranchSelector.extend({ pageSize: PageSize, pageToken: PageToken }),
  response: { status: 200, description: 'A page of items.', schema: Page(MediaItemView) },
  errors: [...ERRORS, ...BRANCH_ERRORS, 'invalid_payload'],
  handler: async ({ deps, principal, params, query }) => {
    const { pageSize, pageToken, ...selector } = query;
    return { data: await listMediaItems(deps, principal, params.mediaSetRid, selector, { pageSize, pageToken }) };
  },
});

export const getRidByPathRoute = defineRoute({
  method: 'get',
  path: '/api/v1/mediasets/{mediaSetRid}/items/getRidByPath',
  operationId: 'getMediaItemRidByPath',
  summary: 'The rid of the item visible at a path on a branch',
  tags: ['media'],
  auth: 'credential',
  params: SetParams,
  query: BranchSelector.extend({ mediaItemPath: ItemPath }),
  response: { status: 200, description: 'The item’s rid.', schema: z.object({ mediaItemRid: z.string() }) },
  errors: [...ERRORS, ...BRANCH_ERRORS, 'missing_media_item_path', 'media_item_path_invalid', 'media_item_not_found'],
  handler: async ({ deps, principal, params, query }) => {
    const { mediaItemPath, ...selector } = query;
    return { data: await getMediaItemRidByPath(deps, principal, params.mediaSetRid, mediaItemPath, selector) };
  },
});

export const getMediaItemInfoRoute = defineRoute({
  method: 'get',
  path: '/api/v1/mediasets/{mediaSetRid}/items/{mediaItemRid}',
  operationId: 'getMediaItemInfo',
  summary: 'A committed item’s path, type, size and hash',
  tags: ['media'],
  auth: 'credential',
  params: ItemParams,
  response: { status: 200, description: 'The item.', schema: MediaItemView },
  errors: [...ERRORS, 'media_item_not_found'],
  handler: async ({ deps, principal, params }) => ({
    data: await getMediaItemInfo(deps, principal, params.mediaSetRid, params.mediaItemRid),
  }),
});

export const readMediaItemContentRoute = defineRoute({
  method: 'get',
  path: '/api/v1/mediasets/{mediaSetRid}/items/{mediaItemRid}/content',
  operationId: 'readMediaItemContent',
  summary: 'A committed item’s bytes, with HTTP range requests and a strong ETag',
  description:
    'One range (`Range: bytes=a-b`, `a-`, `-n`) answers 206 with Content-Range; a range past the end 416; several ranges the whole item. ' +
    'ETag is the content’s SHA-256 (If-None-Match: 304). Answers carry Content-Disposition (attachment unless a plain image, audio, ' +
    'video, PDF or text), X-Content-Type-Options: nosniff and a sandbox Content-Security-Policy, so uploaded HTML or SVG never runs.',
  tags: ['media'],
  auth: 'credential',
  params: ItemParams,
  envelope: false,
  responseType: 'application/octet-stream',
  response: { status: 200, description: 'The bytes, as their Content-Type.', schema: z.instanceof(Buffer) },
  errors: [...ERRORS, 'media_item_not_found'],
  async handler({ deps, principal, params, ctx }) {
    return contentAnswer(await readMediaItem(deps, principal, params.mediaSetRid, params.mediaItemRid), ctx);
  },
});

const TransformationParams = ItemParams.extend({ transformationJobId: TransformationJobId });
const TRANSFORMATION_ERRORS = [...ERRORS, 'media_item_not_found', 'transformation_not_found'] as const;

export const transformMediaItemRoute = defineRoute({
  method: 'post',
  path: '/api/v1/mediasets/{mediaSetRid}/items/{mediaItemRid}/transform',
  operationId: 'transformMediaItem',
  summary: 'Transform an image item (thumbnail, rotation, grayscale, format conversion); answers the finished job',
  description:
    'Runs on the service’s worker threads and answers when the job is done (status SUCCESSFUL or FAILED); the result is read at ' +
    '`…/transform/{transformationJobId}/result`. A job is named by the input’s content and the transformation, so repeating a ' +
    `request finds it done. Images only (${TRANSFORMABLE_IMAGE_TYPES.join(', ')}; other kinds: transformation_unavailable); ` +
    `at most ${MEDIA_LIMITS.transformationInputBytes} bytes and ${MEDIA_LIMITS.transformationInputPixels} pixels in ` +
    `(transformation_input_too_large), at most ${MEDIA_LIMITS.transformationOutputSide} pixels a side out. Any role on the set may transform.`,
  tags: ['media'],
  auth: 'credential',
  write: true,
  params: ItemParams,
  body: TransformMediaItemInput,
  response: { status: 201, description: 'The finished job.', schema: TransformationJobView },
  errors: [...ERRORS, 'media_item_not_found', 'transformation_unavailable', 'transformation_input_too_large'],
  // The image is transformed before the write's transaction opens: no connection waits on a worker thread.
  prepare: ({ deps, principal, params, body, dryRun }) => runMediaTransformation(deps, principal, params, body, dryRun),
  handler: async ({ db, prepared, dryRun }) => ({
    status: 201,
    data: dryRun ? prepared.job : await recordMediaTransformation(db, prepared),
    plan: { jobId: prepared.job.jobId, alreadyDone: prepared.cached },
  }),
});

export const getTransformationStatusRoute = defineRoute({
  method: 'get',
  path: '/api/v1/mediasets/{mediaSetRid}/items/{mediaItemRid}/transform/{transformationJobId}/status',
  operationId: 'getMediaTransformationJobStatus',
  summary: 'A transformation job of an item: its status, and why it failed',
  tags: ['media'],
  auth: 'credential',
  params: TransformationParams,
  response: { status: 200, description: 'The job.', schema: TransformationJobView },
  errors: [...TRANSFORMATION_ERRORS],
  handler: async ({ deps, principal, params }) => ({
    data: await getMediaTransformationStatus(deps, principal, { ...params, jobId: params.transformationJobId }),
  }),
});

export const readTransformationResultRoute = defineRoute({
  method: 'get',
  path: '/api/v1/mediasets/{mediaSetRid}/items/{mediaItemRid}/transform/{transformationJobId}/result',
  operationId: 'readMediaTransformationResult',
  summary: 'The bytes a transformation job produced, answered like an item’s content (ranges, strong ETag, sandbox headers)',
  description: 'A job that failed produced nothing: transformed_media_item_not_found, with details.failure.',
  tags: ['media'],
  auth: 'credential',
  params: TransformationParams,
  envelope: false,
  responseType: 'application/octet-stream',
  response: { status: 200, description: 'The bytes, as their Content-Type.', schema: z.instanceof(Buffer) },
  errors: [...TRANSFORMATION_ERRORS, 'transformed_media_item_not_found'],
  async handler({ deps, principal, params, ctx }) {
    return contentAnswer(
      contentOf(await readMediaTransformationResult(deps, principal, { ...params, jobId: params.transformationJobId })),
      ctx,
    );
  },
});

export const mediaRoutes = [
  createMediaSetRoute,
  listMediaSetsRoute,
  getMediaSetRoute,
  createTransactionRoute,
  commitTransactionRoute,
  abortTransactionRoute,
  putMediaItemRoute,
  listMediaItemsRoute,
  getRidByPathRoute,
  getMediaItemInfoRoute,
  readMediaItemContentRoute,
  transformMediaItemRoute,
  getTransformationStatusRoute,
  readTransformationResultRoute,
];
