import type { Skill } from '../../schemas/bundle/index.ts';
import { type Manifest, manifestSchema } from '../../schemas/manifest/index.ts';
import { BoundedCache } from '../cache/index.ts';
import type { Channel, DbOrTrx } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { cacheFamily, readThrough } from '../keys/index.ts';
import { releaseFacts } from './repository.ts';
import { onlineVersionIds } from './version-status.ts';

export interface HostedApp {
  id: string;
  namespace: string;
  slug: string;
  companyId: string | null;
}

export interface HostedFile {
  sha256: Buffer;
  /** Hex of sha256: the strong ETag and the key of compressed variants. */
  hex: string;
  contentType: string;
}

export interface HostedVersion {
  id: string;
  version: string;
  digest: string;
  /** The first 16 hex characters of the digest: the version's `_v/` segment. */
  digest16: string;
  manifest: Manifest;
  skills: Skill[];
  files: Map<string, HostedFile>;
}

// Apps are never renamed and versions never change, so both are cached for good once found
// (bounded); channel pointers and tickets are always read fresh (for the `_v/` files, through the
// principal cache, which their changes empty in every process). Versions are keyed by their
// random ids; an app's name means something only in its own database, so that cache is kept per
// database handle (a process may serve several, as tests do; a transaction's is dropped with it).
const appsByDb = new WeakMap<DbOrTrx, BoundedCache<string, HostedApp>>();
function appCache(db: DbOrTrx): BoundedCache<string, HostedApp> {
  let cache = appsByDb.get(db);
  if (!cache) {
    cache = new BoundedCache<string, HostedApp>(10_000);
    appsByDb.set(db, cache);
  }
  return cache;
}
const versions = new BoundedCache<string, HostedVersion>(2_000, (v) => 1 + v.files.size);

export async function findHostedApp(db: DbOrTrx, namespace: string, slug: string): Promise<HostedApp | undefined> {
  const key = `${namespace}/${slug}`;
  const apps = appCache(db);
  const cached = apps.get(key);
  if (cached) return cached;
  const row = await db
    .selectFrom('apps')
    .select(['id', 'company_id'])
    .where('namespace', '=', namespace)
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!row) return undefined;
  const app = { id: row.id, namespace, slug, companyId: row.company_id };
  apps.set(key, app);
  return app;
}

/** The version a channel points at now, or undefined when nothing is in it. */
export async function currentVersionId(db: DbOrTrx, appId: string, channel: Channel): Promise<string | undefined> {
  const row = await db.selectFrom('apps').select(['test_version_id', 'production_version_id']).where('id', '=', appId).executeTakeFirst();
  return (channel === 'test' ? row?.test_version_id : row?.production_version_id) ?? undefined;
}

export async function loadVersion(db: DbOrTrx, versionId: string): Promise<HostedVersion> {
  const cached = versions.get(versionId);
  if (cached) return cached;
  const row = await db
    .selectFrom('app_versions')
    .select(['id', 'version', 'digest', 'manifest', 'skills'])
    .where('id', '=', versionId)
    .executeTakeFirstOrThrow();
  const files = await db
    .selectFrom('version_files')
    .select(['path', 'blob_sha256', 'content_type'])
    .where('version_id', '=', versionId)
    .execute();
  const version: HostedVersion = {
    id: row.id,
    version: row.version,
    digest: row.digest,
    digest16: row.digest.slice(0, 16),
    // Parsed again so that versions stored before a field existed read with its default.
    manifest: manifestSchema.parse(row.manifest),
    skills: row.skills as Skill[],
    files: new Map(files.map((f) => [f.path, { sha256: f.blob_sha256, hex: f.blob_sha256.toString('hex'), contentType: f.content_type }])),
  };
  versions.set(versionId, version);
  return version;
}

/** The versions an app's channel tree serves now, by app and channel. */
const ONLINE_VERSIONS = cacheFamily<readonly string[]>('online');

/**
 * A version by its `_v/` segment, if the channel's tree serves it now (`onlineVersionIds`: the
 * channel's version and, on production, its rollback target). Any other version is offline: an
 * upload never put in the channel, and one the channel moved away from. The online set is read
 * fresh after every channel move in any process: it is kept in the principal cache, which a
 * trigger on the pointers empties everywhere (migration 2026-11-25T0130-online-versions).
 */
export async function findServedVersion(
  deps: Pick<DomainDeps, 'db' | 'principals'>,
  appId: string,
  channel: Channel,
  digest16: string,
): Promise<HostedVersion | undefined> {
  const ids = await readThrough(deps, ONLINE_VERSIONS, `${appId}:${channel}`, async () => {
    const row = await deps.db
      .selectFrom('apps')
      .select(['test_version_id', 'production_version_id'])
      .where('id', '=', appId)
      .executeTakeFirst();
    if (!row) return undefined;
    const pointers = { testVersionId: row.test_version_id, productionVersionId: row.production_version_id };
    return onlineVersionIds(channel, pointers, await releaseFacts(deps.db, appId));
  });
  for (const id of ids ?? []) {
    const version = await loadVersion(deps.db, id);
    if (version.digest16 === digest16) return version;
  }
  return undefined;
}

/** Official apps, or one company's, with the version each channel shows, for the catalog pages. */
export async function catalogRows(db: DbOrTrx, namespace: string, channel: Channel) {
  const pointer = channel === 'test' ? 'a.test_version_id' : 'a.production_version_id';
  return db
    .selectFrom('apps as a')
    .innerJoin('app_versions as v', 'v.id', pointer)
    .select(['a.slug', 'v.version', 'v.manifest'])
    .where('a.namespace', '=', namespace)
    .orderBy('a.slug')
    .execute();
}

/** An app and the version its channel shows now; app_not_found when either is missing. */
export async function findChannelVersion(db: DbOrTrx, namespace: string, slug: string, channel: Channel) {
  const app = await findHostedApp(db, namespace, slug);
  const versionId = app && (await currentVersionId(db, app.id, channel));
  if (!app || !versionId) {
    throw new DomainError('app_not_found', `No app ${namespace}/${slug} in the ${channel} channel.`, {
      details: { namespace, slug, channel },
    });
  }
  return { app, version: await loadVersion(db, versionId) };
}
