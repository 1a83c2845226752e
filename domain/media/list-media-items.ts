import type { BranchSelector, MediaItemView } from '../../schemas/media.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { branchOf, itemRows, itemView, mediaSetFor } from './repository.ts';

const decodeToken = (token: string) => {
  const path = Buffer.from(token, 'base64url').toString('utf8');
  if (path.length === 0 || Buffer.from(path, 'utf8').toString('base64url') !== token) {
    throw new DomainError('invalid_payload', 'The page token is not one this listing gave.', { details: { path: ['query', 'pageToken'] } });
  }
  return path;
};

/** The committed items of a branch by path, a page at a time (the token: the last path of the previous page). */
export async function listMediaItems(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  rid: string,
  selector: BranchSelector,
  page: { pageSize: number; pageToken?: string | undefined },
): Promise<{ data: MediaItemView[]; nextPageToken: string | null }> {
  const set = await mediaSetFor(deps, principal, rid, 'media-set.read');
  const branch = await branchOf(deps.db, set.id, selector);
  let q = itemRows(deps.db).where('i.branch_id', '=', branch.id).where('i.visible', '=', true);
  if (page.pageToken !== undefined) q = q.where('i.path', '>', decodeToken(page.pageToken));
  const rows = await q
    .orderBy('i.path')
    .limit(page.pageSize + 1)
    .execute();
  const data = rows.slice(0, page.pageSize).map((row) => itemView(set, row));
  const last = data.at(-1);
  return { data, nextPageToken: rows.length > page.pageSize && last ? Buffer.from(last.path, 'utf8').toString('base64url') : null };
}
