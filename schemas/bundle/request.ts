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

export const bundleInputSchema = z.strictObject({
  manifest: z.unknown(),
  files: bundleFilesSchema,
});

export type BundleFileInput = z.output<typeof bundleFileSchema>;
export type BundleInput = z.output<typeof bundleInputSchema>;
