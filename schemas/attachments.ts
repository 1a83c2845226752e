import { z } from 'zod';

// Attachment contracts (shapes after Foundry's Ontologies attachments, docs/api/attachments.md):
// a file uploaded on its own, then linked to objects through an action parameter of type
// `attachment`; an attachment no object uses an hour after its upload is removed.

export const ATTACHMENT_RID_PREFIX = 'ri.attachments.main.attachment.';

export const ATTACHMENT_LIMITS = {
  /** The largest attachment (spec Limits: media, 200 MB). */
  bytes: 200_000_000,
  /** An attachment must be linked to an object within this time of its upload, or it is removed (spec Limits: one hour). */
  unusedMs: 60 * 60 * 1000,
  /** Objects one attachment may be linked to (spec Limits: media). */
  objects: 10,
  /** The longest filename, in UTF-16 code units. */
  filenameLength: 255,
  /** Attachments one pass of the removal deletes in one statement. */
  removalBatch: 500,
} as const;

export const AttachmentRid = z
  .string()
  .max(120)
  .regex(
    /^ri\.attachments\.main\.attachment\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    `must be an attachment rid (${ATTACHMENT_RID_PREFIX}<uuid>)`,
  );

/**
 * A file's name as the uploader gives it: shown and sent back in Content-Disposition, never used as
 * a path. Control characters (U+0000 included) and path separators are refused, not stripped, so
 * the name stored is the name given.
 */
export const AttachmentFilename = z
  .string()
  .min(1)
  .max(ATTACHMENT_LIMITS.filenameLength)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  .regex(/^[^\u0000-\u001f\u007f/\\]+$/, 'must hold no control characters and no path separators (/ or \\)')
  .refine((name) => name !== '.' && name !== '..', 'must not be . or ..')
  .meta({ description: `The file’s name (1–${ATTACHMENT_LIMITS.filenameLength} characters, no control characters, no / or \\).` });

export const UploadAttachmentQuery = z.strictObject({
  filename: AttachmentFilename,
  ontology: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'The company (its namespace) the attachment belongs to; needed only by a web session of several companies.' }),
});

/** Foundry AttachmentV2. */
export const Attachment = z.object({
  rid: z.string(),
  filename: z.string(),
  sizeBytes: z.number().int(),
  mediaType: z.string(),
});
export type Attachment = z.infer<typeof Attachment>;

/** Foundry AttachmentMetadataResponse: our attachment properties hold one attachment each. */
export const AttachmentMetadataResponse = Attachment.extend({ type: z.literal('single') });
