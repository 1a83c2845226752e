import type { Selectable } from 'kysely';
import type { DbOrTrx, ReleaseRecordsTable } from '../db/database.ts';
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
