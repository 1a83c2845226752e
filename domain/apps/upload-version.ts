import type { UploadedVersion } from '../../schemas/apps.ts';
import {
  type BundleFileInput,
  type BundleInput,
  bundleDigest,
  bundleFiles,
  decodeContent,
  decodedSize,
  MAX_BUNDLE_BYTES,
  type Skill,
  type StoredFileInput,
  type ValidBundle,
  type Warning,
} from '../../schemas/bundle/index.ts';
import { type Manifest, manifestSchema, type SdkName } from '../../schemas/manifest/index.ts';
import { type Problem, problem, quoted, reportedProblems } from '../../schemas/problems.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { PublicAddresses } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize, authorizeKey, PUBLIC_NAMESPACE } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { tenantOf } from '../rate-limit/index.ts';
import { newId } from '../security/index.ts';
import type { BlobStore } from './blob-store.ts';
import { pageHostingOf, validateBundleOffThread } from './bundle-validation.ts';
import { getApp, namespaceContents, storedVersion } from './repository.ts';

export type AppAddress = { namespace: string; slug: string };

/**
 * The deploy-time check of a manifest's workflow (app-workflows' checkWorkflow). Passed in by the
 * caller: app workflows run on apps, so apps cannot import them.
 */
export type WorkflowCheck = (db: DbOrTrx, companyId: string | null, manifest: Manifest) => Promise<Problem[]>;

function invalidBundle(problems: readonly Problem[], warnings: readonly Warning[]): DomainError {
  return new DomainError('bundle_invalid', `The bundle has ${problems.length} problem(s).`, {
    details: { ...reportedProblems(problems), warnings },
  });
}

// A manifest may repeat the address; then it must name the same app.
function addressProblems(manifest: unknown, address: AppAddress): Problem[] {
  if (manifest === null || typeof manifest !== 'object') return [];
  const named = manifest as { slug?: unknown; namespace?: unknown };
  return (['slug', 'namespace'] as const).flatMap((field) => {
    const value = named[field];
    return typeof value === 'string' && value !== address[field]
      ? [problem(`manifest.${field}`, `${field}_mismatch`, `the manifest names ${quoted(value)} but the address names ${address[field]}`)]
      : [];
  });
}

/** The upload body: the spec's bundle, plus files given by the hash of content already stored. */
export type UploadInput = BundleInput & { storedFiles?: readonly StoredFileInput[] | undefined };

/**
 * `storedFiles` as ordinary files (their bytes from the blob store), appended after `files`, so
 * the one validation checks them. Only contents the namespace's versions hold are taken.
 */
async function resolveStoredFiles(
  store: { db: DbOrTrx; blobs: BlobStore },
  namespace: string,
  storedFiles: readonly StoredFileInput[],
): Promise<{ files: BundleFileInput[]; problems: Problem[] }> {
  const known = await namespaceContents(
    store.db,
    namespace,
    storedFiles.map((f) => f.sha256),
  );
  const problems = storedFiles.flatMap((f, i) =>
    known.has(f.sha256)
      ? []
      : [
          problem(
            `storedFiles[${i}].sha256`,
            'content_not_stored',
            `${quoted(f.path)}: this content is not stored for ${namespace}; send it in files`,
          ),
        ],
  );
  if (problems.length > 0) return { files: [], problems };
  const files = await Promise.all(
    storedFiles.map(async (f) => ({
      path: f.path,
      encoding: 'base64' as const,
      content: (await store.blobs.get(f.sha256)).toString('base64'),
    })),
  );
  return { files, problems };
}

// Validation numbers the appended stored files after `files`; answers name them as sent.
function storedFilePaths(problems: readonly Problem[], sentFiles: number): Problem[] {
  return problems.map((p) => {
    const match = /^files\[(\d+)\]/.exec(p.path);
    const index = match ? Number(match[1]) : -1;
    return index >= sentFiles ? { ...p, path: `storedFiles[${index - sentFiles}]${p.path.slice(match![0].length)}` } : p;
  });
}

/**
 * An identical re-upload (a retry, a second deploy of the same bundle), recognised before any
 * validation: the files decode strictly and, with the manifest, give the digest of the version
 * stored under this number. The same digest means the same manifest and contents, validated when
 * that version was first uploaded, so the bundle is rebuilt from the stored version and the bytes
 * sent instead of going to the validation thread again. Anything else is left to validation.
 */
async function storedIdentical(db: DbOrTrx, address: AppAddress, bundle: UploadInput): Promise<ValidBundle | undefined> {
  if (bundle.storedFiles?.length || addressProblems(bundle.manifest, address).length > 0) return undefined;
  const version =
    bundle.manifest !== null && typeof bundle.manifest === 'object' ? (bundle.manifest as { version?: unknown }).version : undefined;
  if (typeof version !== 'string') return undefined;
  const size = bundle.files.reduce((total, f) => total + decodedSize(f.encoding, f.content), 0);
  if (size > MAX_BUNDLE_BYTES) return undefined;
  const stored = await storedVersion(db, address, version);
  if (!stored) return undefined;
  const decoded: { path: string; bytes: Buffer }[] = [];
  for (const file of bundle.files) {
    const content = decodeContent(file.encoding, file.content);
    if (!content.ok) return undefined;
    decoded.push({ path: file.path, bytes: content.bytes });
  }
  const files = bundleFiles(decoded);
  if (bundleDigest(files, bundle.manifest) !== stored.digest) return undefined;
  // Stored by an older release whose manifest no longer reads: validation decides.
  const manifest = manifestSchema.safeParse(stored.manifest);
  if (!manifest.success) return undefined;
  // The stored columns hold what validation produced for these very contents.
  return {
    ok: true,
    manifest: manifest.data,
    files,
    skills: stored.skills as Skill[],
    sdkUsed: stored.sdk_used as SdkName[],
    warnings: stored.warnings as Warning[],
    digest: stored.digest,
    size: files.reduce((total, file) => total + file.bytes.length, 0),
  };
}

/**
 * B3, before the transaction: may the principal upload here, and is the bundle valid? The
 * validation runs on a worker thread, so it holds neither the event loop nor a connection.
 * Then the files go to the blob store, unless this is a dry run (which writes nothing): before
 * the version row commits, so a visible version always finds its files, and outside the
 * transaction, which an S3 store cannot join and which should not wait on one. An upload that
 * fails afterwards (conflict, crash) leaves only unreferenced blobs: content-addressed, so
 * harmless, reused by the next upload of the same bytes, and deleted by the blob sweep after its grace period.
 */
export async function checkUpload(
  principal: Principal,
  address: AppAddress,
  bundle: UploadInput,
  store: { db: DbOrTrx; blobs: BlobStore; dryRun: boolean; checkWorkflow: WorkflowCheck; addresses: PublicAddresses },
): Promise<ValidBundle> {
  authorize(principal, 'app.deploy', { namespace: address.namespace });
  // Its files are stored already, so they are not sent to the store again either.
  const identical = await storedIdentical(store.db, address, bundle);
  if (identical) return identical;
  const stored = bundle.storedFiles?.length
    ? await resolveStoredFiles(store, address.namespace, bundle.storedFiles)
    : { files: [], problems: [] };
  if (stored.problems.length > 0) throw invalidBundle(stored.problems, []);
  const validation = await validateBundleOffThread(
    { manifest: bundle.manifest, files: [...bundle.files, ...stored.files], hosting: pageHostingOf(store.addresses) },
    tenantOf(principal),
  );
  const problems = [
    ...(validation.ok ? [] : storedFilePaths(validation.problems, bundle.files.length)),
    ...addressProblems(bundle.manifest, address),
    // The workflow against the company's capability catalog and accounts (needs the database).
    ...(validation.ok && principal.kind === 'key'
      ? await store.checkWorkflow(store.db, address.namespace === PUBLIC_NAMESPACE ? null : principal.company.id, validation.manifest)
      : []),
  ];
  if (!validation.ok || problems.length > 0) throw invalidBundle(problems, validation.warnings);
  if (store.dryRun) return validation;
  // An identical re-upload (a retry, a second deploy of the same bundle): that version's files
  // are stored already, so it is answered without sending the bytes to the store again.
  if ((await storedVersion(store.db, address, validation.manifest.version))?.digest === validation.digest) return validation;
  // Contents that came from the store are there already: touched only, so the blob sweep keeps
  // them until the version names them even if the version that named them goes meanwhile.
  const reused = new Set(bundle.storedFiles?.map((f) => f.sha256));
  await store.blobs.touch([...reused]);
  await store.blobs.put(validation.files.filter((f) => !reused.has(f.sha256)));
  return validation;
}

/**
 * B3, in the transaction: create the version of a bundle `checkUpload` accepted, or find the
 * identical one (retries are safe), or refuse changed content under a used number.
 * The app row is locked, so concurrent identical uploads make one version.
 */
export async function uploadVersion(
  db: DbOrTrx,
  principal: Principal,
  input: AppAddress & { notes?: string | undefined },
  bundle: ValidBundle,
): Promise<UploadedVersion> {
  // Checked again: cheap, and the use case stays safe whoever calls it.
  authorizeKey(principal, 'app.deploy', { namespace: input.namespace });

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
