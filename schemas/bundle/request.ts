// Shape of the bundle part of POST /api/v1/developer/apps/{namespace}/{slug}/versions.
// The route validates the body with this (invalid_payload); validateBundle checks the content
// (bundle_invalid). Sizes are content rules and not bounded here; the file count is, so that no
// work is spent on files beyond it (a 6 MB body can hold 100,000 small ones).
import { z } from 'zod';
import { type Problem, problem } from '../problems.ts';

export const MAX_BUNDLE_FILES = 200;

/** The file-count problem, also reported by validateBundle for callers that do not use this schema. */
export function tooManyFiles(count: number): Problem {
  return problem('files', 'too_many_files', `${count} files; at most ${MAX_BUNDLE_FILES} are allowed`);
}

export const bundleFileSchema = z.strictObject({
  path: z.string(),
  encoding: z.enum(['utf8', 'base64']),
  content: z.string(),
});

// The count is checked before any file is parsed, with the bundle's problem code; `.max` only
// documents the bound (maxItems) in the OpenAPI document.
export const bundleFilesSchema = z.preprocess((files, ctx) => {
  if (Array.isArray(files) && files.length > MAX_BUNDLE_FILES) {
    const { code, message } = tooManyFiles(files.length);
    ctx.addIssue({ code: 'custom', message, params: { code } });
  }
  return files;
}, z.array(bundleFileSchema).max(MAX_BUNDLE_FILES));

/** Lowercase hex SHA-256, the address of a file's content. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * A file given by the hash of content the service already stores for the company (the CLI sends
 * only what changed): the extension of the upload body's `storedFiles`.
 */
export const storedFileSchema = z.strictObject({
  path: z.string(),
  sha256: z.string().regex(SHA256_HEX, 'must be a lowercase hex SHA-256'),
});

export const storedFilesSchema = z.array(storedFileSchema).max(MAX_BUNDLE_FILES);

/** The count rule over both lists of an upload: `files` and `storedFiles` together. */
export function tooManyFilesInTotal(files: unknown, storedFiles: unknown): Problem | undefined {
  const count = (Array.isArray(files) ? files.length : 0) + (Array.isArray(storedFiles) ? storedFiles.length : 0);
  return Array.isArray(storedFiles) && count > MAX_BUNDLE_FILES ? tooManyFiles(count) : undefined;
}

export const bundleInputSchema = z.strictObject({
  manifest: z.unknown(),
  files: bundleFilesSchema,
});

export type BundleFileInput = z.output<typeof bundleFileSchema>;
export type BundleInput = z.output<typeof bundleInputSchema>;
export type StoredFileInput = z.output<typeof storedFileSchema>;
