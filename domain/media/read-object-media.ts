import { type IMAGE_ENCODINGS, MediaItemRid, type MediaItemView, MediaSetRid } from '../../schemas/media.ts';
import type { BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { heldMediaReference, type ObjectMediaInput } from '../ontology/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { tenantOf } from '../rate-limit/index.ts';
import { callerRoleOn } from '../resources/index.ts';
import { itemContent } from './composite-items.ts';
import { itemView, setIdOf, setRows, visibleItem } from './repository.ts';
import { recordMediaTransformation, transformItem } from './transform-media-item.ts';

// A media property's item read through the object that holds it (Foundry's getMediaContent): who
// reads the object reads what it references, so an app's visitor sees the photo it uploaded
// without any role on the property's media set (which holds every upload into the property).

type Deps = { db: DbOrTrx; clock: Clock; blobs: BlobStore };

/** A thumbnail's box (the image fits inside it, never enlarged) and its encoding. */
export interface ThumbnailInput {
  width?: number | undefined;
  height?: number | undefined;
  format: keyof typeof IMAGE_ENCODINGS;
}

/** The item an object's media property references, as media.read-through-object admits the caller. */
async function heldItem(deps: Deps, principal: Principal, input: ObjectMediaInput): Promise<MediaItemView> {
  const { property, reference } = await heldMediaReference(deps, principal, input);
  const { mediaSetRid, mediaItemRid } = reference.reference.mediaSetViewItem;
  const missing = new DomainError('media_item_not_found', `No media item ${mediaItemRid}.`, { details: { mediaItemRid } });
  // A value written by a direct edit may name anything: only well-formed rids are looked up.
  if (!MediaSetRid.safeParse(mediaSetRid).success || !MediaItemRid.safeParse(mediaItemRid).success) throw missing;
  const own = await deps.db
    .selectFrom('media_property_sets')
    .select('media_set_id')
    .where('object_type_id', '=', property.objectTypeId)
    .where('property', '=', property.property)
    .executeTakeFirst();
  const propertySet = own?.media_set_id === setIdOf(mediaSetRid);
  authorize(principal, 'media.read-through-object', {
    rid: mediaSetRid,
    role: propertySet ? null : await callerRoleOn(deps.db, deps.clock, principal, mediaSetRid),
    propertySet,
  });
  const set = await setRows(deps.db).where('m.id', '=', setIdOf(mediaSetRid)).executeTakeFirst();
  if (!set) throw missing;
  return itemView(set, await visibleItem(deps.db, set, mediaItemRid));
}

/** `GET …/objects/{objectType}/{primaryKey}/media/{property}/content`: the item, its size, a reader of its bytes (all or a range). */
export async function readObjectMedia(deps: Deps, principal: Principal, input: ObjectMediaInput) {
  return itemContent(deps, await heldItem(deps, principal, input));
}

/**
 * `GET …/media/{property}/thumbnail`: the item scaled to fit the box, made once per content and box
 * (the transformations' cache: the job is recorded, so the next request reads it) and answered as an item.
 */
export async function readObjectMediaThumbnail(deps: Deps, principal: Principal, input: ObjectMediaInput, thumbnail: ThumbnailInput) {
  const item = await heldItem(deps, principal, input);
  const outcome = await transformItem(
    deps,
    item,
    {
      type: 'image',
      // Only the sides given: the job's name (the cache's key) is then the one the transform route names.
      operations: [
        {
          type: 'resize',
          ...(thumbnail.width === undefined ? {} : { width: thumbnail.width }),
          ...(thumbnail.height === undefined ? {} : { height: thumbnail.height }),
          fit: 'inside',
        },
      ],
      encoding: { type: thumbnail.format },
    },
    false,
    tenantOf(principal),
  );
  const job = await recordMediaTransformation(deps.db, outcome);
  if (outcome.outputSha256 === null || job.mimeType === null) {
    throw new DomainError('transformed_media_item_not_found', `No thumbnail of this item: ${job.failure}`, {
      details: { jobId: job.jobId, failure: job.failure },
    });
  }
  const path = `${item.path.replace(/\.[^./]*$/, '')}.${thumbnail.format}`;
  return {
    item: { ...item, path, mimeType: job.mimeType, sizeBytes: job.sizeBytes ?? 0, sha256: outcome.outputSha256 },
    bytes: await deps.blobs.get(outcome.outputSha256),
  };
}
