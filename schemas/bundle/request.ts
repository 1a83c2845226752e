// Shape of the bundle part of POST /api/v1/developer/apps/{namespace}/{slug}/versions.
// The route validates the body with this (invalid_payload); validateBundle checks the content
// (bundle_invalid). Counts and sizes are content rules, so they are not bounded here.
import { z } from 'zod';

export const bundleFileSchema = z.strictObject({
  path: z.string(),
  encoding: z.enum(['utf8', 'base64']),
  content: z.string(),
});

export const bundleInputSchema = z.strictObject({
  manifest: z.unknown(),
  files: z.array(bundleFileSchema),
});

export type BundleFileInput = z.output<typeof bundleFileSchema>;
export type BundleInput = z.output<typeof bundleInputSchema>;
