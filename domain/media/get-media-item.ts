import type { BranchSelector, MediaItemView } from '../../schemas/media.ts';
import type { BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { itemContent } from './composite-items.ts';
import { branchOf, checkedPath, itemRid, itemRows, itemView, mediaSetFor, visibleItem } from './repository.ts';

type Deps = { db: DbOrTrx; clock: Clock };

/** A committed item's information. */
export async function getMediaItemInfo(deps: Deps, principal: Principal, rid: string, mediaItemRid: string): Promise<MediaItemView> {
  const set = await mediaSetFor(deps, principal, rid, 'media-set.read');
  return itemView(set, await visibleItem(deps.db, set, mediaItemRid));
}

/** The rid of the item visible at a path on a branch (main unless named). */
export async function getMediaItemRidByPath(
  deps: Deps,
  principal: Principal,
  rid: string,
  path: string | undefined,
  selector: BranchSelector,
): Promise<{ mediaItemRid: string }> {
  const set = await mediaSetFor(deps, principal, rid, 'media-set.read');
  const checked = checkedPath(path);
  const branch = await branchOf(deps.db, set.id, selector);
  const item = await itemRows(deps.db)
    .where('i.branch_id', '=', branch.id)
    .where('i.visible', '=', true)
    .where('i.path', '=', checked)
    .executeTakeFirst();
  if (!item)
    throw new DomainError('media_item_not_found', `No item at ${checked} on ${branch.name}.`, {
      details: { path: checked, branchName: branch.name },
    });
  return { mediaItemRid: itemRid(item.id) };
}

/** A committed item, its size, and a reader of its bytes (all or a range; checked against their hashes by the content store). */
export async function readMediaItem(
  deps: Deps & { blobs: BlobStore },
  principal: Principal,
  rid: string,
  mediaItemRid: string,
): Promise<{ item: MediaItemView; size: number; read: (range?: { start: number; end: number }) => Promise<Buffer> }> {
  const set = await mediaSetFor(deps, principal, rid, 'media-set.read');
  return itemContent(deps, itemView(set, await visibleItem(deps.db, set, mediaItemRid)));
}
