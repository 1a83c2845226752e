import type { Selectable } from 'kysely';
import type { DbOrTrx, ReleaseRecordsTable } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { ReleaseFact } from './version-status.ts';

export async function findApp(db: DbOrTrx, namespace: string, slug: string, opts: { lock?: boolean } = {}) {
  let q = db.selectFrom('apps').selectAll().where('namespace', '=', namespace).where('slug', '=', slug);
  if (opts.lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function getApp(db: DbOrTrx, namespace: string, slug: string, opts: { lock?: boolean } = {}) {
  const app = await findApp(db, namespace, slug, opts);
  if (!app) throw new DomainError('app_not_found', `No app ${namespace}/${slug}.`, { details: { namespace, slug } });
  return app;
}

type ReleaseRow = Pick<Selectable<ReleaseRecordsTable>, 'channel' | 'action' | 'from_version_id' | 'to_version_id' | 'seq'>;

export const toReleaseFact = (r: ReleaseRow): ReleaseFact => ({
  channel: r.channel,
  action: r.action,
  fromVersionId: r.from_version_id,
  toVersionId: r.to_version_id,
  seq: r.seq,
});

export async function releaseFacts(db: DbOrTrx, appId: string): Promise<ReleaseFact[]> {
  const rows = await db
    .selectFrom('release_records')
    .select(['channel', 'action', 'from_version_id', 'to_version_id', 'seq'])
    .where('app_id', '=', appId)
    .orderBy('seq')
    .execute();
  return rows.map(toReleaseFact);
}

/**
 * Which of `hashes` files of versions in `namespace` hold: the only contents an upload there
 * may refer to by hash. Blobs other companies uploaded are never confirmed (no cross-company
 * oracle), nor are unreferenced ones (a failed upload's), which the namespace may not own.
 */
export async function namespaceContents(db: DbOrTrx, namespace: string, hashes: readonly string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await db
    .selectFrom('version_files as f')
    .innerJoin('app_versions as v', 'v.id', 'f.version_id')
    .innerJoin('apps as a', 'a.id', 'v.app_id')
    .select('f.blob_sha256')
    .distinct()
    .where('a.namespace', '=', namespace)
    .where(
      'f.blob_sha256',
      'in',
      hashes.map((h) => Buffer.from(h, 'hex')),
    )
    .execute();
  return new Set(rows.map((r) => r.blob_sha256.toString('hex')));
}

/** The version stored under this number, if any: its digest and what validation made of its bundle. */
export async function storedVersion(db: DbOrTrx, address: { namespace: string; slug: string }, version: string) {
  return db
    .selectFrom('app_versions as v')
    .innerJoin('apps as a', 'a.id', 'v.app_id')
    .select(['v.digest', 'v.manifest', 'v.skills', 'v.sdk_used', 'v.warnings'])
    .where('a.namespace', '=', address.namespace)
    .where('a.slug', '=', address.slug)
    .where('v.version', '=', version)
    .executeTakeFirst();
}
