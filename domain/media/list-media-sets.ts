import { MEDIA_SET_RID_PREFIX, type MediaSetView } from '../../schemas/media.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { listResources } from '../resources/index.ts';
import { setRows, setView } from './repository.ts';

/**
 * The media sets the caller has a role on (its companies' and those shared with it), by rid, a
 * page at a time: the page token is the last rid of the previous page.
 */
export async function listMediaSets(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  page: { pageSize: number; pageToken?: string | undefined },
): Promise<{ data: MediaSetView[]; nextPageToken: string | null }> {
  const visible = (
    await Promise.all(
      (['organization', 'shared'] as const).map((scope) => listResources(deps.db, deps.clock, principal, scope, 'media-set')),
    )
  )
    .flat()
    .map((r) => r.rid)
    .filter((rid) => page.pageToken === undefined || rid > page.pageToken)
    .sort();
  const rids = visible.slice(0, page.pageSize);
  const rows =
    rids.length === 0
      ? []
      : await setRows(deps.db)
          .where(
            'm.id',
            'in',
            rids.map((rid) => rid.slice(MEDIA_SET_RID_PREFIX.length)),
          )
          .execute();
  const views = await Promise.all(rows.map((row) => setView(deps.db, row)));
  views.sort((a, b) => (a.rid < b.rid ? -1 : 1));
  return { data: views, nextPageToken: visible.length > page.pageSize ? (rids.at(-1) ?? null) : null };
}
