// The app manifest (spec "App manifest"). Every object is strict: unknown keys are problems.
// Parsing fills every default, so older manifests lacking newer fields read as complete ones.
import { z } from 'zod';
import { evolveSchema } from './evolve.ts';
import { exportsSchema } from './exports.ts';
import { limitsSchema } from './limits.ts';
import { CELL_ID_PATTERN, custom, dottedName, kebabName, SLUG_PATTERN } from './patterns.ts';
import { sdkSchema } from './sdk.ts';
import { workflowSchema } from './workflow.ts';

/** `plugin.json` is the default for new apps; `svc.app.json` is the legacy name, still read. */
export const MANIFEST_FILE_NAME = 'plugin.json';
export const LEGACY_MANIFEST_FILE_NAME = 'svc.app.json';
export const MANIFEST_FILE_NAMES = [MANIFEST_FILE_NAME, LEGACY_MANIFEST_FILE_NAME] as const;

/** The two public script CDNs an app may load scripts from (written into the CSP). */
export const CDN_HOSTS = ['cdn.jsdelivr.net', 'unpkg.com'] as const;

export const VERSION_PATTERN = /^(0|[1-9][0-9]{0,5})[.](0|[1-9][0-9]{0,5})[.](0|[1-9][0-9]{0,5})(-[0-9A-Za-z.-]{1,32})?$/;
export const NAMESPACE_PATTERN = new RegExp(`^(public|${CELL_ID_PATTERN.source.slice(1, -1)})$`);
const ENTRY_PATTERN = /^[a-z0-9][a-z0-9._/-]*[.]html$/;

const page = z.string().max(120).regex(ENTRY_PATTERN, 'must be a lowercase relative path ending in .html');
const shortNames = z.array(z.string().min(1).max(64)).max(12).default([]);
const semanticList = z
  .array(z.union([z.literal('*'), dottedName]))
  .max(24)
  .default([]);

const fields = {
  $schema: z.string().max(200).optional(),
  manifestVersion: z.literal(1).default(1),
  slug: z.string().regex(SLUG_PATTERN),
  version: z.string().regex(VERSION_PATTERN, 'must be a semantic version such as 1.2.3 or 1.2.3-beta.1'),
  title: z.string().min(1).max(60),
  summary: z.string().max(240).default(''),
  description: z.string().max(2000).optional(),
  examples: z.array(z.string().min(2).max(120)).max(6).default([]),
  category: z.enum(['vision', 'voice', 'video', 'data', 'agent', 'general']).default('general'),
  owner: z
    .strictObject({ department: z.string().min(1).max(40), team: z.string().max(40).optional(), contact: z.string().max(60).optional() })
    .optional(),
  namespace: z.string().regex(NAMESPACE_PATTERN, 'must be "public" or cell-<company id>').optional(),
  entry: page.nullable().default('index.html'),
  mcpUi: page.optional(),
  deviceType: z.enum(['desktop', 'mobile']).optional(),
  sdk: sdkSchema,
  permissions: z.strictObject({ camera: z.boolean().default(false), microphone: z.boolean().default(false) }).prefault({}),
  models: shortNames,
  datasets: shortNames,
  streams: z.array(kebabName).max(12).default([]),
  cameras: z.array(kebabName).max(16).default([]),
  agents: z.boolean().default(false),
  semantic: z.strictObject({ types: semanticList, actions: semanticList, write: semanticList }).prefault({}),
  exports: exportsSchema,
  auth: z
    .strictObject({
      access: z.enum(['company', 'restricted']).default('company'),
      // Legacy `open` behaves as `signin` (spec: "open behaves as signin").
      publicLink: z
        .enum(['signin', 'members', 'open'])
        .transform((value) => (value === 'open' ? 'signin' : value))
        .default('signin'),
    })
    .prefault({}),
  storage: z.strictObject({ type: z.literal('none') }).prefault({ type: 'none' }),
  limits: limitsSchema,
  cdn: z
    .array(z.enum(CDN_HOSTS))
    .max(CDN_HOSTS.length)
    .transform((hosts) => [...new Set(hosts)])
    .default([]),
  evolve: evolveSchema.optional(),
  workflow: workflowSchema.optional(),
};

type Fields = typeof fields;

// Cross-field rule, run even when other fields fail so that all problems are reported at once;
// it only needs `sdk` to have parsed.
const workflowNeedsSemantic = z.superRefine<z.output<z.ZodObject<Fields>>>(
  (manifest, ctx) => {
    if (manifest.workflow !== undefined && !manifest.sdk.includes('semantic')) {
      custom(ctx, 'workflow_sdk_missing', 'a workflow needs "semantic" (or legacy "workflow") in sdk', ['sdk']);
    }
  },
  {
    when: (payload) =>
      payload.value !== null &&
      typeof payload.value === 'object' &&
      !payload.issues.some((issue) => ['sdk', 'workflow'].includes(String(issue.path?.[0]))),
  },
);

export const manifestSchema = z.strictObject(fields).check(workflowNeedsSemantic);

export type ManifestInput = z.input<typeof manifestSchema>;
export type Manifest = z.output<typeof manifestSchema>;
