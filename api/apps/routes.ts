import { z } from 'zod';
import { manifestJsonSchema, NAMESPACE_PATTERN, SLUG_PATTERN } from '../../schemas/manifest/index.ts';
import { defineRoute } from '../http/route.ts';
import { AppView, appView, UpdateStatusSchema } from './app-view.ts';
import { bundleFileSchema } from './bundle/index.ts';
import { assertCanRead, readableNamespaces } from './namespace-access.ts';
import { promote } from './promote.ts';
import { uploadVersion } from './upload-version.ts';

const AppParams = z.object({
  namespace: z.string().regex(NAMESPACE_PATTERN, 'must be public or cell-<company>'),
  slug: z.string().regex(SLUG_PATTERN, 'must be a slug: a lowercase letter, then 1 to 47 lowercase letters, digits or hyphens'),
});
const Notes = z.string().max(2000);
const DEVELOPER = { accepts: ['key'], role: 'developer' } as const;
const READER = { accepts: ['key'] } as const;
const Warning = z.object({ path: z.string().optional(), code: z.string(), message: z.string() });

export const uploadVersionRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/apps/{namespace}/{slug}/versions',
  operationId: 'uploadAppVersion',
  summary: 'Upload a version bundle (manifest and files); the first upload creates the app',
  description:
    '201 for new content; 200 with the existing version when files and manifest are identical (retries are safe); ' +
    '409 version_conflict when the version number already holds other content; 422 bundle_invalid listing every problem ' +
    '(`details.problems`, each with path, code and message) and the warnings.',
  tags: ['apps'],
  auth: DEVELOPER,
  write: true,
  params: AppParams,
  body: z.strictObject({ manifest: z.unknown(), files: z.array(bundleFileSchema), notes: Notes.optional() }),
  response: {
    status: 201,
    description: 'The version was created (200: it already existed with identical content).',
    schema: z.object({
      app: z.object({ namespace: z.string(), slug: z.string() }),
      version: z.string(),
      build: z.number().int(),
      buildLabel: z.string(),
      digest: z.string(),
      created: z.boolean(),
      warnings: z.array(Warning),
      skills: z.array(z.string()),
    }),
  },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'bundle_invalid', 'version_conflict'],
  async handler({ db, principal, params, body }) {
    const result = await uploadVersion(db, principal, { ...params, ...body });
    return {
      status: result.created ? 201 : 200,
      data: {
        app: params,
        version: result.version,
        build: result.build,
        buildLabel: `#${result.build}`,
        digest: result.digest,
        created: result.created,
        warnings: result.warnings,
        skills: result.skills,
      },
    };
  },
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
  auth: DEVELOPER,
  write: true,
  params: AppParams.extend({ channel: z.enum(['test', 'production']) }),
  body: z.strictObject({ version: z.string().min(1).max(60).optional(), notes: Notes.optional() }),
  response: {
    status: 200,
    description: 'The channel change (GET the app for its versions and records).',
    schema: z.object({
      channel: z.enum(['test', 'production']),
      action: z.enum(['enter_test', 'publish', 'rollback']).nullable(),
      from: z.string().nullable(),
      to: z.string(),
      changed: z.boolean(),
    }),
  },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'app_not_found', 'conflict'],
  async handler({ db, principal, params, body }) {
    return { data: await promote(db, principal, { ...params, ...body }) };
  },
});

export const getAppRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/apps/{namespace}/{slug}',
  operationId: 'getApp',
  summary: 'One app: channel pointers, versions with their update status, release records, page addresses',
  tags: ['apps'],
  auth: READER,
  snapshot: true,
  params: AppParams,
  response: { status: 200, description: 'The app.', schema: AppView },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'app_not_found'],
  async handler({ db, principal, params, deps }) {
    assertCanRead(principal, params.namespace);
    return { data: await appView(db, deps.addresses(), params.namespace, params.slug) };
  },
});

const AppSummary = z
  .object({
    namespace: z.string(),
    slug: z.string(),
    title: z.string(),
    category: z.string(),
    department: z.string().nullable(),
    test: z.object({ version: z.string(), build: z.number().int() }).nullable(),
    production: z.object({ version: z.string(), build: z.number().int() }).nullable(),
    latest: z.object({ version: z.string(), build: z.number().int(), status: UpdateStatusSchema.optional() }),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'AppSummary' });

async function appSummaries(db: Parameters<typeof appView>[0], namespaces: string[]): Promise<z.input<typeof AppSummary>[]> {
  if (namespaces.length === 0) return [];
  const rows = await db
    .selectFrom('apps as a')
    .innerJoin('app_versions as latest', (j) =>
      j.onRef('latest.app_id', '=', 'a.id').on((eb) => eb('latest.build', '=', eb.selectFrom('app_versions').select(eb.fn.max('build').as('b')).whereRef('app_id', '=', 'a.id'))),
    )
    .leftJoin('app_versions as t', 't.id', 'a.test_version_id')
    .leftJoin('app_versions as p', 'p.id', 'a.production_version_id')
    .select([
      'a.namespace', 'a.slug', 'latest.version as latest_version', 'latest.build as latest_build', 'latest.created_at as updated_at',
      't.version as test_version', 't.build as test_build', 'p.version as prod_version', 'p.build as prod_build',
      (eb) => eb.fn.coalesce('p.manifest', 'latest.manifest').as('manifest'),
    ])
    .where('a.namespace', 'in', namespaces)
    .orderBy('a.namespace')
    .orderBy('a.slug')
    .execute();
  return rows.map((r) => {
    const m = r.manifest as { title: string; category: string; owner?: { department?: string } };
    return {
      namespace: r.namespace,
      slug: r.slug,
      title: m.title,
      category: m.category,
      department: m.owner?.department ?? null,
      test: r.test_version ? { version: r.test_version, build: r.test_build! } : null,
      production: r.prod_version ? { version: r.prod_version, build: r.prod_build! } : null,
      latest: { version: r.latest_version, build: r.latest_build },
      updatedAt: r.updated_at.toISOString(),
    };
  });
}

export const listAppsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/apps',
  operationId: 'listApps',
  summary: 'Apps visible to the key: its company namespace, plus public for platform keys',
  tags: ['apps'],
  auth: READER,
  response: { status: 200, description: 'Apps by namespace and slug.', schema: z.object({ apps: z.array(AppSummary) }) },
  errors: ['unauthorized'],
  async handler({ db, principal }) {
    return { data: { apps: await appSummaries(db, readableNamespaces(principal)) } };
  },
});

export const registryRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/registry',
  operationId: 'getRegistry',
  summary: 'One row per company app (and public app, for platform keys)',
  tags: ['apps'],
  auth: READER,
  response: {
    status: 200,
    description: 'The registry.',
    schema: z.object({ rows: z.array(AppSummary.omit({ latest: true }).extend({ latestBuild: z.number().int() })) }),
  },
  errors: ['unauthorized'],
  async handler({ db, principal }) {
    const apps = await appSummaries(db, readableNamespaces(principal));
    return { data: { rows: apps.map(({ latest, ...row }) => ({ ...row, latestBuild: latest.build })) } };
  },
});


export const MANIFEST_SCHEMA_PATH = '/schemas/manifest/v1.json';

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

export const appRoutes = [listAppsRoute, registryRoute, getAppRoute, uploadVersionRoute, promoteRoute, manifestSchemaRoute];
