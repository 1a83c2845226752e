import { randomUUID } from 'node:crypto';
import { MEDIA_LIMITS, MEDIA_VIEW_RID_PREFIX, type MediaUploadFailure, type MediaUploadView } from '../../schemas/media.ts';
import type { MediaReference } from '../../schemas/ontology.ts';
import { assertBlobDestination, type BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { type MediaProperty, openMediaProperty } from '../ontology/index.ts';
import { authorize, mediaUploadItemLimit } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { ensureBranch, itemRid, MAIN_BRANCH, setRid } from './repository.ts';

// Upload sessions into an object type's media property: shared lookups of the use cases.

export interface UploadTarget {
  ontology: string;
  objectType: string;
  property: string;
}

/**
 * The media property and its session (media_upload_not_found otherwise), as the policy admits the
 * caller to both: a session that names its object is a direct edit, and an app ticket reaches only
 * its own account's sessions.
 */
export async function openUpload(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, target: UploadTarget, uploadId: string) {
  const property = await openMediaProperty(deps, principal, target.ontology, target.objectType, target.property);
  // Locked: parts, completion and deletion of one session apply one after another.
  const row = await deps.db
    .selectFrom('media_uploads')
    .selectAll()
    .where('id', '=', uploadId)
    .where('object_type_id', '=', property.objectTypeId)
    .where('property', '=', property.property)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new DomainError('media_upload_not_found', `No upload ${uploadId}.`, { details: { uploadId } });
  authorize(principal, 'ontology.upload-media', {
    namespace: property.cellId,
    objectType: property.objectType,
    direct: row.primary_key !== null,
    session: { uploadId, openedByCaller: row.created_by === principal.account.id },
  });
  return { property, upload: row };
}

/** Refused unless the session is in one of the states given (409 conflict, details.state). */
export function assertState(upload: { id: string; state: string }, ...states: string[]): void {
  if (!states.includes(upload.state)) {
    throw new DomainError('conflict', `Upload ${upload.id} is ${upload.state}.`, { details: { uploadId: upload.id, state: upload.state } });
  }
}

/** A declared or sent item beyond what this credential may upload (the policy's cap): payload_too_large. */
export function assertItemLimit(principal: Principal, sizeBytes: number): void {
  const limit = mediaUploadItemLimit(principal);
  if (sizeBytes > limit) {
    throw new DomainError('payload_too_large', `This credential uploads items of at most ${limit} bytes.`, {
      details: { limitBytes: limit, sizeBytes },
    });
  }
}

/** Items above the database's share need an S3 store: said when the session is made, not at its last part. */
export function assertDestination(blobs: BlobStore, size: number): void {
  assertBlobDestination(blobs, size, MEDIA_LIMITS.databaseItemBytes, 'Items');
}

/**
 * The media set of a media property, made at its first upload (schema any, named after the
 * property, created by the uploader); concurrent first uploads agree on one.
 */
export async function propertySet(db: DbOrTrx, property: MediaProperty, accountId: string): Promise<string> {
  const existing = () =>
    db
      .selectFrom('media_property_sets')
      .select('media_set_id')
      .where('object_type_id', '=', property.objectTypeId)
      .where('property', '=', property.property)
      .executeTakeFirst();
  const found = await existing();
  if (found) return found.media_set_id;
  const id = randomUUID();
  await db
    .insertInto('media_sets')
    .values({
      id,
      company_id: property.companyId,
      name: `${property.objectType}.${property.property}`,
      schema: 'any',
      created_by: accountId,
    })
    .execute();
  await ensureBranch(db, id, MAIN_BRANCH);
  const inserted = await db
    .insertInto('media_property_sets')
    .values({ object_type_id: property.objectTypeId, property: property.property, media_set_id: id })
    .onConflict((oc) => oc.columns(['object_type_id', 'property']).doNothing())
    .executeTakeFirst();
  if (inserted.numInsertedOrUpdatedRows === 0n) {
    await db.deleteFrom('media_sets').where('id', '=', id).execute();
    return (await existing())!.media_set_id;
  }
  return id;
}

export const partRows = (db: DbOrTrx, uploadId: string) =>
  db
    .selectFrom('media_upload_parts')
    .select(['part_number', 'sha256', 'size'])
    .where('upload_id', '=', uploadId)
    .orderBy('part_number')
    .execute();

export type UploadRow = Awaited<ReturnType<typeof openUpload>>['upload'];

/** The value a media property holds for an item of its set (Foundry MediaReference). */
export async function mediaReferenceOf(db: DbOrTrx, itemId: string): Promise<MediaReference> {
  const item = await db
    .selectFrom('media_items as i')
    .innerJoin('media_set_branches as b', 'b.id', 'i.branch_id')
    .select(['i.mime_type', 'b.media_set_id', 'b.view_id'])
    .where('i.id', '=', itemId)
    .executeTakeFirstOrThrow();
  return {
    mimeType: item.mime_type,
    reference: {
      type: 'mediaSetViewItem',
      mediaSetViewItem: {
        mediaSetRid: setRid(item.media_set_id),
        mediaSetViewRid: `${MEDIA_VIEW_RID_PREFIX}${item.view_id}`,
        mediaItemRid: itemRid(itemId),
      },
    },
  };
}

export async function uploadView(db: DbOrTrx, property: MediaProperty, upload: UploadRow): Promise<MediaUploadView> {
  const parts = await partRows(db, upload.id);
  return {
    uploadId: upload.id,
    objectType: property.objectType,
    property: property.property,
    mediaSetRid: setRid(upload.media_set_id),
    state: upload.state,
    sizeBytes: upload.size,
    mimeType: upload.mime_type,
    primaryKey: upload.primary_key === null ? null : (JSON.parse(upload.primary_key) as string | number),
    parts: parts.map((p) => ({ partNumber: p.part_number, sizeBytes: p.size, sha256: p.sha256.toString('hex') })),
    mediaReference: upload.media_item_id === null ? null : await mediaReferenceOf(db, upload.media_item_id),
    failure:
      upload.failure_code === null ? null : { code: upload.failure_code as MediaUploadFailure, message: upload.failure_message ?? '' },
  };
}
