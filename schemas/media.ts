import { z } from 'zod';
import { CellId } from './identity.ts';
import { MediaReference } from './ontology.ts';

// Media set contracts (shapes after Foundry's MediaSets API, docs/api/media.md): a set holds
// items by path on branches; transactions make a batch of items visible at once.

export const MEDIA_SET_RID_PREFIX = 'ri.mio.svc.media-set.';
export const MEDIA_ITEM_RID_PREFIX = 'ri.mio.svc.media-item.';
export const MEDIA_BRANCH_RID_PREFIX = 'ri.mio.svc.media-set-branch.';
export const MEDIA_VIEW_RID_PREFIX = 'ri.mio.svc.media-set-view.';

export const MEDIA_LIMITS = {
  /** One part of an upload session (spec Limits: media). */
  uploadPartBytes: 16 * 1024 * 1024,
  /** Parts of one upload session, numbered 1 to this. */
  uploadParts: 10_000,
  /** The largest item an upload session takes (spec Limits: media, 50 GB in decimal units); assembly streams, so memory does not grow with it. */
  uploadItemBytes: 50 * 1000 ** 3,
  /** An OPEN session untouched (no part, no completion) this long is abandoned: the purge schedule makes it PURGED. */
  abandonedUploadHours: 24,
  /** The largest item a restricted agent key uploads, declared and sent (spec Limits: media; the policy applies it). */
  agentUploadItemBytes: 64 * 1024 * 1024,
  /** Items one transaction may stage (spec Limits: media). */
  itemsPerTransaction: 10_000,
  /** The body of one direct put (POST …/items): larger items go through upload sessions. */
  putItemBytes: 16 * 1024 * 1024,
  /** Items up to this size may live in PostgreSQL; larger ones need the S3 store (SVC_BLOB_STORE). */
  databaseItemBytes: 4 * 1024 * 1024,
  pageSize: { default: 100, max: 1000 },
  /** The largest item a transformation reads (transformation_input_too_large above). */
  transformationInputBytes: 32 * 1024 * 1024,
  /** The most pixels a transformation decodes (sharp's limitInputPixels): a small file that unpacks to more is refused, not decoded. */
  transformationInputPixels: 40_000_000,
  /** The largest width or height a transformation produces. */
  transformationOutputSide: 4096,
  /** Operations in one image transformation. */
  transformationOperations: 8,
} as const;

export const MEDIA_SCHEMAS = ['image', 'audio', 'video', 'document', 'any'] as const;
export type MediaSchema = (typeof MEDIA_SCHEMAS)[number];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const ridOf = (prefix: string, what: string) =>
  z
    .string()
    .max(120)
    .regex(new RegExp(`^${prefix.replaceAll('.', '\\.')}${UUID.source}$`), `must be a ${what} (${prefix}<uuid>)`);

export const MediaSetRid = ridOf(MEDIA_SET_RID_PREFIX, 'media set rid');
export const MediaItemRid = ridOf(MEDIA_ITEM_RID_PREFIX, 'media item rid');
export const MediaBranchRid = ridOf(MEDIA_BRANCH_RID_PREFIX, 'media set branch rid');
export const MediaViewRid = ridOf(MEDIA_VIEW_RID_PREFIX, 'media set view rid');
export const MediaTransactionId = z.string().regex(new RegExp(`^${UUID.source}$`), 'must be a transaction id (a uuid)');
export const MediaBranchName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash and underscore, starting with a letter or digit');

/** `type/subtype` (or `type/*` in an allowed list), lowercase. */
const MimePattern = z
  .string()
  .max(127)
  .regex(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/, 'must be a MIME type such as image/png or image/*');

export const CreateMediaSetInput = z.strictObject({
  organization: CellId.optional().meta({ description: 'The company; defaults to the key’s company.' }),
  name: z.string().trim().min(1).max(200),
  schema: z.enum(MEDIA_SCHEMAS).meta({ description: 'The kind of media the set holds; `any` admits every type.' }),
  allowedMimeTypes: z
    .array(MimePattern)
    .max(50)
    .default([])
    .meta({ description: 'Exact types or `type/*`, each admitted by the schema; empty: whatever the schema admits.' }),
});
export type CreateMediaSetInput = z.output<typeof CreateMediaSetInput>;

export const MediaSetView = z
  .object({
    rid: z.string(),
    name: z.string(),
    organization: z.string(),
    schema: z.enum(MEDIA_SCHEMAS),
    allowedMimeTypes: z.array(z.string()),
    branches: z.array(z.object({ name: z.string(), rid: z.string(), viewRid: z.string() })),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'MediaSet' });
export type MediaSetView = z.input<typeof MediaSetView>;

/** Names one branch: at most one of the three (conflicting_media_set_identifiers); none: main. */
export const BranchSelector = z.strictObject({
  branchName: MediaBranchName.optional(),
  branchRid: MediaBranchRid.optional(),
  viewRid: MediaViewRid.optional(),
});
export type BranchSelector = z.output<typeof BranchSelector>;

export const MediaItemView = z
  .object({
    mediaItemRid: z.string(),
    mediaSetRid: z.string(),
    path: z.string(),
    branchName: z.string(),
    mimeType: z.string(),
    sizeBytes: z.number().int(),
    sha256: z.string(),
    transactionId: z.string().nullable().meta({ description: 'The transaction that committed it; null: put directly.' }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'MediaItem' });
export type MediaItemView = z.input<typeof MediaItemView>;

export const MediaTransactionView = z
  .object({
    transactionId: z.string(),
    mediaSetRid: z.string(),
    branchName: z.string(),
    state: z.enum(['OPEN', 'COMMITTED', 'ABORTED']),
    itemCount: z.number().int(),
  })
  .meta({ id: 'MediaSetTransaction' });
export type MediaTransactionView = z.input<typeof MediaTransactionView>;

/** The item types image transformations read (sharp's decoders; SVG is left out: it is a document, not pixels). */
export const TRANSFORMABLE_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif', 'image/tiff'] as const;
export const IMAGE_ENCODINGS = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

const Side = z.number().int().min(1).max(MEDIA_LIMITS.transformationOutputSide);
const ImageOperation = z.discriminatedUnion('type', [
  z
    .strictObject({
      type: z.literal('resize'),
      width: Side.optional(),
      height: Side.optional(),
      fit: z.enum(['inside', 'cover', 'contain', 'fill']).default('inside').meta({
        description:
          '`inside` (a thumbnail: the whole image within the box, never enlarged), `cover` (crop to fill it), `contain` (letterbox), `fill` (stretch).',
      }),
    })
    // A box of one side only is a thumbnail's (inside, never enlarged): the others could stretch a thin image without bound.
    .refine(
      (o) => (o.fit === 'inside' ? o.width !== undefined || o.height !== undefined : o.width !== undefined && o.height !== undefined),
      {
        message: 'give a width or a height (both for cover, contain and fill)',
        path: ['width'],
      },
    ),
  z.strictObject({ type: z.literal('rotate'), angle: z.union([z.literal(90), z.literal(180), z.literal(270)]) }),
  z.strictObject({ type: z.literal('grayscale') }),
]);

/** A thumbnail of a media property's item, read through its object: the box it fits inside and its encoding. */
export const ObjectMediaThumbnailQuery = z
  .strictObject({
    width: z.coerce.number().int().min(1).max(MEDIA_LIMITS.transformationOutputSide).optional(),
    height: z.coerce.number().int().min(1).max(MEDIA_LIMITS.transformationOutputSide).optional(),
    format: z.enum(Object.keys(IMAGE_ENCODINGS) as [keyof typeof IMAGE_ENCODINGS]).default('jpeg'),
  })
  .refine((q) => q.width !== undefined || q.height !== undefined, { message: 'give a width or a height', path: ['width'] });

export const ImageTransformation = z
  .strictObject({
    type: z.literal('image'),
    operations: z.array(ImageOperation).max(MEDIA_LIMITS.transformationOperations).default([]),
    encoding: z.strictObject({
      type: z.enum(Object.keys(IMAGE_ENCODINGS) as [keyof typeof IMAGE_ENCODINGS]),
      quality: z.number().int().min(1).max(100).optional().meta({ description: 'JPEG and WebP quality; default 80.' }),
    }),
  })
  .meta({ id: 'ImageTransformation' });
export type ImageTransformation = z.output<typeof ImageTransformation>;

/**
 * Foundry's other transformation kinds: named so that asking for one answers
 * transformation_unavailable (not invalid_payload); their fields are not read.
 */
export const UNAVAILABLE_TRANSFORMATIONS = [
  'audio',
  'video',
  'documentToText',
  'documentToImage',
  'documentToPdf',
  'spreadsheetToText',
  'emailToText',
  'emailAttachment',
  'dicomToImage',
  'geoImage',
] as const;

export const TransformMediaItemInput = z.strictObject({
  transformation: z.union([
    ImageTransformation,
    z.looseObject({ type: z.enum(UNAVAILABLE_TRANSFORMATIONS) }).meta({ description: 'Not available here: transformation_unavailable.' }),
  ]),
});
export type TransformMediaItemInput = z.output<typeof TransformMediaItemInput>;

export const TransformationJobId = z.string().regex(/^[0-9a-f]{64}$/, 'must be a transformation job id');

export const TransformationJobView = z
  .object({
    jobId: z.string().meta({ description: 'Names the input’s content and the transformation: the same request answers the same job.' }),
    status: z.enum(['SUCCESSFUL', 'FAILED']),
    mimeType: z.string().nullable().meta({ description: 'The result’s type; null when the job failed.' }),
    sizeBytes: z.number().int().nullable(),
    failure: z.string().nullable().meta({ description: 'Why the job failed (the input is not a readable image); null on success.' }),
  })
  .meta({ id: 'MediaTransformationJob' });
export type TransformationJobView = z.input<typeof TransformationJobView>;

// ---- Upload sessions into an object type's media property

export const MediaUploadId = z.string().regex(new RegExp(`^${UUID.source}$`), 'must be an upload id (a uuid)');

export const CreateMediaUploadInput = z.strictObject({
  sizeBytes: z
    .number()
    .int()
    .min(1)
    .max(MEDIA_LIMITS.uploadItemBytes)
    .meta({ description: 'The item’s exact size; completion refuses parts that do not add up to it.' }),
  mimeType: MimePattern.refine((t) => !t.endsWith('/*'), 'must be a MIME type such as image/png'),
  primaryKey: z
    .union([z.string().min(1).max(1000), z.number()])
    .optional()
    .meta({ description: 'The object whose property the completion sets; absent: use the returned mediaReference in an edit or action.' }),
});
export type CreateMediaUploadInput = z.infer<typeof CreateMediaUploadInput>;

export const MediaUploadPartView = z
  .object({ partNumber: z.number().int(), sizeBytes: z.number().int(), sha256: z.string() })
  .meta({ id: 'MediaUploadPart' });
export type MediaUploadPartView = z.input<typeof MediaUploadPartView>;

/**
 * Why an assembly FAILED: a part's bytes are no longer in the store, parts whose bytes do not add
 * up to their recorded or declared sizes, bytes that do not match a part's hash, or the object the
 * session was to set deleted meanwhile.
 */
export const MEDIA_UPLOAD_FAILURES = [
  'media_upload_part_missing',
  'media_upload_size_mismatch',
  'media_upload_part_corrupt',
  'object_not_found',
] as const;
export type MediaUploadFailure = (typeof MEDIA_UPLOAD_FAILURES)[number];

export const MediaUploadView = z
  .object({
    uploadId: z.string(),
    objectType: z.string(),
    property: z.string(),
    mediaSetRid: z.string().meta({ description: 'The property’s media set, where the completed item goes.' }),
    state: z.enum(['OPEN', 'COMPLETING', 'COMPLETED', 'FAILED', 'PURGED']),
    sizeBytes: z.number().int(),
    mimeType: z.string(),
    primaryKey: z.union([z.string(), z.number()]).nullable(),
    parts: z.array(MediaUploadPartView),
    mediaReference: MediaReference.nullable().meta({ description: 'Once COMPLETED: the value the property holds.' }),
    failure: z
      .object({ code: z.enum(MEDIA_UPLOAD_FAILURES), message: z.string() })
      .nullable()
      .meta({ description: 'Once FAILED: why the assembly could not make the item (the session keeps no parts; open a new one).' }),
  })
  .meta({ id: 'MediaUpload' });
export type MediaUploadView = z.input<typeof MediaUploadView>;
