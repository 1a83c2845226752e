import { randomUUID } from 'node:crypto';
import type { CreateMediaUploadInput, MediaUploadView } from '../../schemas/media.ts';
import type { BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { openMediaProperty } from '../ontology/index.ts';
import type { Principal } from '../principal.ts';
import { assertDestination, assertItemLimit, propertySet, type UploadTarget, uploadView } from './uploads.ts';

/** Opens an upload session into a media property: its declared size and type, and the object it will set, if any. */
export async function createMediaUpload(
  deps: { db: DbOrTrx; clock: Clock; blobs: BlobStore },
  principal: Principal,
  target: UploadTarget,
  input: CreateMediaUploadInput,
): Promise<MediaUploadView> {
  const property = await openMediaProperty(deps, principal, target.ontology, target.objectType, target.property, input.primaryKey);
  assertItemLimit(principal, input.sizeBytes);
  assertDestination(deps.blobs, input.sizeBytes);
  const mediaSetId = await propertySet(deps.db, property, principal.account.id);
  const upload = await deps.db
    .insertInto('media_uploads')
    .values({
      id: randomUUID(),
      object_type_id: property.objectTypeId,
      property: property.property,
      media_set_id: mediaSetId,
      primary_key: input.primaryKey === undefined ? null : JSON.stringify(input.primaryKey),
      size: input.sizeBytes,
      mime_type: input.mimeType,
      state: 'OPEN',
      created_by: principal.account.id,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return uploadView(deps.db, property, upload);
}
