import type { UploadedVersion } from '../../schemas/apps.ts';
import { type BundleInput, validateBundle } from '../../schemas/bundle/index.ts';
import type { DbOrTrx } from '../db/database.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/random.ts';
import { putBlobs } from './blob-store.ts';
import { assertCanWrite, PUBLIC_NAMESPACE } from './namespace-access.ts';
import { getApp } from './repository.ts';

export interface UploadInput extends BundleInput {
  namespace: string;
  slug: string;
  notes?: string | undefined;
}

/**
 * B3: validate the bundle, then create the version, or find the identical one
 * (retries are safe), or refuse changed content under a used number.
 * The app row is locked, so concurrent identical uploads make one version.
 */
export async function uploadVersion(db: DbOrTrx, principal: Principal, input: UploadInput): Promise<UploadedVersion> {
  assertCanWrite(principal, input.namespace);
  if (principal.kind !== 'key') throw new DomainError('unauthorized');

  const bundle = validateBundle({ manifest: input.manifest, files: input.files });
  const problems = bundle.ok ? [] : [...bundle.problems];
  const manifest = input.manifest as { slug?: unknown; namespace?: unknown } | null;
  if (manifest && typeof manifest === 'object') {
    if (manifest.slug !== undefined && manifest.slug !== input.slug) {
      problems.push({
        path: 'manifest.slug',
        code: 'slug_mismatch',
        message: `the manifest names ${JSON.stringify(manifest.slug)} but the address names ${input.slug}`,
      });
    }
    if (manifest.namespace !== undefined && manifest.namespace !== input.namespace) {
      problems.push({
        path: 'manifest.namespace',
        code: 'namespace_mismatch',
        message: `the manifest names ${JSON.stringify(manifest.namespace)} but the address names ${input.namespace}`,
      });
    }
  }
  if (!bundle.ok || problems.length) {
    throw new DomainError('bundle_invalid', `The bundle has ${problems.length} problem(s).`, {
      details: { problems, warnings: bundle.warnings },
    });
  }

  await db
    .insertInto('apps')
    .values({
      id: newId('app'),
      namespace: input.namespace,
      slug: input.slug,
      company_id: input.namespace === PUBLIC_NAMESPACE ? null : principal.company.id,
      created_by: principal.account.id,
    })
    .onConflict((oc) => oc.columns(['namespace', 'slug']).doNothing())
    .execute();
  const app = await getApp(db, input.namespace, input.slug, { lock: true });

  const version = bundle.manifest.version;
  const existing = await db
    .selectFrom('app_versions')
    .select(['build', 'digest'])
    .where('app_id', '=', app.id)
    .where('version', '=', version)
    .executeTakeFirst();
  if (existing && existing.digest !== bundle.digest) {
    throw new DomainError('version_conflict', `Version ${version} already holds different content: raise the version number.`, {
      details: { version, build: existing.build, existingDigest: existing.digest, digest: bundle.digest },
    });
  }
  const answer = (build: number, created: boolean): UploadedVersion => ({
    app: { namespace: input.namespace, slug: input.slug },
    version,
    build,
    buildLabel: `#${build}`,
    digest: bundle.digest,
    created,
    warnings: bundle.warnings,
    skills: bundle.skills.map((s) => s.name),
  });
  if (existing) return answer(existing.build, false);

  const build = app.next_build;
  const versionId = newId('ver');
  await db
    .updateTable('apps')
    .set({ next_build: build + 1 })
    .where('id', '=', app.id)
    .execute();
  await putBlobs(db, bundle.files);
  await db
    .insertInto('app_versions')
    .values({
      id: versionId,
      app_id: app.id,
      version,
      build,
      digest: bundle.digest,
      manifest: JSON.stringify(bundle.manifest),
      size: bundle.size,
      file_count: bundle.files.length,
      sdk_used: JSON.stringify(bundle.sdkUsed),
      skills: JSON.stringify(bundle.skills),
      warnings: JSON.stringify(bundle.warnings),
      notes: input.notes ?? null,
      created_by: principal.account.id,
    })
    .execute();
  if (bundle.files.length) {
    await db
      .insertInto('version_files')
      .values(
        bundle.files.map((f) => ({
          version_id: versionId,
          path: f.path,
          blob_sha256: Buffer.from(f.sha256, 'hex'),
          content_type: f.contentType,
        })),
      )
      .execute();
  }
  return answer(build, true);
}
