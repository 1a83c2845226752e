import type { MediaItemView, TransformationJobView } from '../../schemas/media.ts';
import type { BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { itemView, mediaSetFor, visibleItem } from './repository.ts';
import { jobView } from './transform-media-item.ts';

type Deps = { db: DbOrTrx; clock: Clock };

/** A transformation job of an item the caller may read: only a job of this item's content exists for it (transformation_not_found). */
async function jobOf(deps: Deps, principal: Principal, ids: { mediaSetRid: string; mediaItemRid: string; jobId: string }) {
  const set = await mediaSetFor(deps, principal, ids.mediaSetRid, 'media-set.read');
  const item = itemView(set, await visibleItem(deps.db, set, ids.mediaItemRid));
  const row = await deps.db
    .selectFrom('media_transformations')
    .selectAll()
    .where('id', '=', ids.jobId)
    .where('input_sha256', '=', Buffer.from(item.sha256, 'hex'))
    .executeTakeFirst();
  if (!row)
    throw new DomainError('transformation_not_found', `No transformation job ${ids.jobId} of this item.`, {
      details: { jobId: ids.jobId },
    });
  return { item, row };
}

export async function getMediaTransformationStatus(
  deps: Deps,
  principal: Principal,
  ids: { mediaSetRid: string; mediaItemRid: string; jobId: string },
): Promise<TransformationJobView> {
  return jobView((await jobOf(deps, principal, ids)).row);
}

/**
 * A successful job's result as an item of its own (the source's path, its new type, the result's
 * hash) and its bytes; a failed job has none (transformed_media_item_not_found, with why).
 */
export async function readMediaTransformationResult(
  deps: Deps & { blobs: BlobStore },
  principal: Principal,
  ids: { mediaSetRid: string; mediaItemRid: string; jobId: string },
): Promise<{ item: MediaItemView; bytes: Buffer }> {
  const { item, row } = await jobOf(deps, principal, ids);
  if (row.output_sha256 === null || row.output_mime_type === null) {
    throw new DomainError('transformed_media_item_not_found', `Transformation job ${row.id} produced no item: ${row.failure}`, {
      details: { jobId: row.id, failure: row.failure },
    });
  }
  const sha256 = row.output_sha256.toString('hex');
  const extension = row.output_mime_type.split('/')[1];
  const path = `${item.path.replace(/\.[^./]*$/, '')}.${extension}`;
  return {
    item: { ...item, path, mimeType: row.output_mime_type, sizeBytes: Number(row.output_size), sha256 },
    bytes: await deps.blobs.get(sha256),
  };
}
