import { z } from 'zod';
import { listRegistry } from '../../domain/app-surface/index.ts';
import { checkWorkflow } from '../../domain/app-workflows/index.ts';
import { checkUpload, describeApp, findStoredFiles, listApps, promoteVersion, uploadVersion } from '../../domain/apps/index.ts';
import { RegistryRow } from '../../schemas/app-surface.ts';
import { AppParams, AppView, Channel, ChannelChange, ListedApp, Notes, UploadedVersion } from '../../schemas/apps.ts';
import { bundleFilesSchema, MAX_BUNDLE_FILES, SHA256_HEX, storedFilesSchema, tooManyFilesInTotal } from '../../schemas/bundle/index.ts';
import { MANIFEST_SCHEMA_PATH, manifestJsonSchema } from '../../schemas/manifest/index.ts';
import { MAX_REPORTED_PROBLEMS } from '../../schemas/problems.ts';
import { defineRoute } from '../http/route.ts';

export const uploadVersionRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/apps/{namespace}/{slug}/versions',
  operationId: 'uploadAppVersion',
  summary: 'Upload a version bundle (manifest and files); the first upload creates the app',
  description:
    '201 for new content; 200 with the existing version when files and manifest are identical (retries are safe); ' +
    '409 version_conflict when the version number already holds other content; 422 bundle_invalid listing the problems ' +
    `(\`details.problems\`, each with path, code and message: the first ${MAX_REPORTED_PROBLEMS}, \`details.omittedProblems\` counts the rest) ` +
    `and the warnings. More than ${MAX_BUNDLE_FILES} files: 400 invalid_payload with the problem too_many_files. The bundle is ` +
    'analysed before the transaction, on a worker thread with a time limit; running past it is the problem analysis_timeout. ' +
    'Extension (optional; the body above works unchanged): `storedFiles` lists files by the SHA-256 of content this ' +
    'namespace’s versions already hold (ask `GET …/stored-files` first), so a re-deploy sends only what changed. A hash the ' +
    'namespace does not hold is the problem content_not_stored at `storedFiles[i].sha256` (send that file in `files`); ' +
    `\`files\` and \`storedFiles\` together hold at most ${MAX_BUNDLE_FILES} files.`,
  tags: ['apps'],
  auth: 'credential',
  write: true,
  bodyLimit: 'upload',
  params: AppParams,
  body: z
    .strictObject({
      manifest: z.unknown(),
      files: bundleFilesSchema,
      storedFiles: storedFilesSchema.optional().meta({
        description: 'Files given by the SHA-256 of content already stored for this namespace, instead of their content.',
      }),
      notes: Notes.optional(),
    })
    .superRefine((body, ctx) => {
      const tooMany = tooManyFilesInTotal(body.files, body.storedFiles);
      if (tooMany) ctx.addIssue({ code: 'custom', path: ['storedFiles'], message: tooMany.message, params: { code: tooMany.code } });
    }),
  response: {
    status: 201,
    description: 'The version was created (200: it already existed with identical content).',
    schema: UploadedVersion,
  },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'bundle_invalid', 'version_conflict'],
  prepare: ({ principal, params, body, deps, dryRun }) =>
    checkUpload(principal, params, body, { db: deps.db, blobs: deps.blobs, dryRun, checkWorkflow, addresses: deps.addresses() }),
  async handler({ db, principal, params, body, prepared: bundle }) {
    const uploaded = await uploadVersion(db, principal, { ...params, notes: body.notes }, bundle);
    return { status: uploaded.created ? 201 : 200, data: uploaded };
  },
});

/** Hashes per question: 100 keep the address far below common request-line limits (8 KiB). */
export const MAX_STORED_FILE_QUERY = 100;

export const storedFilesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/apps/{namespace}/{slug}/stored-files',
  operationId: 'findStoredFiles',
  summary: 'Which of these file contents (SHA-256) the namespace’s versions already hold, to upload only the others',
  description:
    `\`sha256\`: up to ${MAX_STORED_FILE_QUERY} lowercase hex SHA-256 hashes, comma-separated. The answer lists those that files ` +
    'of versions in the namespace hold (whatever the app): the upload may send them as `storedFiles`. Content stored only for ' +
    'other companies is never confirmed.',
  tags: ['apps'],
  auth: 'credential',
  params: AppParams,
  query: z.strictObject({
    sha256: z
      .string()
      .transform((list) => list.split(','))
      .pipe(z.array(z.string().regex(SHA256_HEX, 'must be a lowercase hex SHA-256')).max(MAX_STORED_FILE_QUERY))
      .meta({ description: `Up to ${MAX_STORED_FILE_QUERY} lowercase hex SHA-256 hashes, comma-separated.` }),
  }),
  response: {
    status: 200,
    description: 'The hashes asked for that the namespace holds.',
    schema: z.object({ stored: z.array(z.string()) }),
  },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'invalid_payload'],
  handler: async ({ db, principal, params, query }) => ({
    data: { stored: await findStoredFiles(db, principal, params.namespace, query.sha256) },
  }),
});

export const promoteRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/apps/{namespace}/{slug}/channels/{channel}',
  operationId: 'promoteAppVersion',
  summary: 'Point the test or production channel at a version, writing a release record',
  description:
    '`version` is a semantic version or a build number (`#3` or `3`). Omitted: the newest upload for test, the version in test ' +
    'for production. Production takes only versions that have been in test (409 otherwise) and re-checks on every call that the ' +
    'key’s owner is still a developer of the company; an earlier version is a rollback. A channel already at that version is left ' +
    'as it is (`changed: false`, no record).',
  tags: ['apps'],
  auth: 'credential',
  write: true,
  params: AppParams.extend({ channel: Channel }),
  body: z.strictObject({ version: z.string().min(1).max(60).optional(), notes: Notes.optional() }),
  response: { status: 200, description: 'The channel change (GET the app for its versions and records).', schema: ChannelChange },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'app_not_found', 'conflict'],
  handler: async ({ db, principal, params, body }) => ({ data: await promoteVersion(db, principal, { ...params, ...body }) }),
});

export const getAppRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/apps/{namespace}/{slug}',
  operationId: 'getApp',
  summary: 'One app: channel pointers, versions with their update status, release records, page addresses',
  tags: ['apps'],
  auth: 'credential',
  snapshot: true,
  params: AppParams,
  response: { status: 200, description: 'The app.', schema: AppView },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'app_not_found'],
  handler: async ({ db, principal, params, deps }) => ({
    data: await describeApp(db, principal, deps.addresses(), params.namespace, params.slug),
  }),
});

export const listAppsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/apps',
  operationId: 'listApps',
  summary: 'Apps visible to the key: its company namespace, plus public for platform keys',
  tags: ['apps'],
  auth: 'credential',
  response: {
    status: 200,
    description: 'Apps by namespace and slug, with their addresses.',
    schema: z.object({ apps: z.array(ListedApp) }),
  },
  errors: ['unauthorized'],
  handler: async ({ db, deps, principal }) => ({ data: { apps: await listApps(db, principal, deps.addresses()) } }),
});

export const registryRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/registry',
  operationId: 'getRegistry',
  summary: 'One row per company app (and public app, for platform keys) with the card’s headline fields',
  tags: ['apps'],
  auth: 'credential',
  response: {
    status: 200,
    description: 'The registry.',
    schema: z.object({ rows: z.array(RegistryRow) }),
  },
  errors: ['unauthorized'],
  handler: async ({ deps, principal }) => ({ data: { rows: await listRegistry(deps, principal) } }),
});

export const manifestSchemaRoute = defineRoute({
  method: 'get',
  path: MANIFEST_SCHEMA_PATH,
  operationId: 'getManifestSchema',
  summary: 'The app manifest’s JSON Schema (draft 2020-12), the stable target of a manifest’s `$schema`',
  tags: ['apps'],
  auth: 'none',
  envelope: false,
  response: { status: 200, description: 'The JSON Schema (not wrapped in the envelope).', schema: z.record(z.string(), z.unknown()) },
  async handler({ deps }) {
    return { data: manifestJsonSchema(`${deps.addresses().baseUrl}${MANIFEST_SCHEMA_PATH}`) };
  },
});

export const appRoutes = [
  listAppsRoute,
  registryRoute,
  getAppRoute,
  storedFilesRoute,
  uploadVersionRoute,
  promoteRoute,
  manifestSchemaRoute,
];
