import { createHash, randomUUID } from 'node:crypto';
import type { MediaUploadView } from '../../schemas/media.ts';
import type { BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { setMediaProperty } from '../ontology/index.ts';
import type { Principal } from '../principal.ts';
import { branchOf } from './repository.ts';
import { assertState, mediaReferenceOf, openUpload, partRows, type UploadTarget, uploadView } from './uploads.ts';

/** Parts 1..n without a gap whose sizes add up to the declared size: anything else is media_upload_incomplete. */
function assertWhole(upload: { id: string; size: number }, parts: readonly { part_number: number; size: number }[]): void {
  const total = parts.reduce((sum, p) => sum + p.size, 0);
  const last = parts.at(-1)?.part_number ?? 0;
  const present = new Set(parts.map((p) => p.part_number));
  const missingParts = [];
  for (let n = 1; n <= last && missingParts.length < 100; n++) if (!present.has(n)) missingParts.push(n);
  if (parts.length === 0 || missingParts.length > 0 || total !== upload.size) {
    throw new DomainError(
      'media_upload_incomplete',
      missingParts.length > 0
        ? `Parts ${missingParts.join(', ')} are missing.`
        : `The parts hold ${total} bytes; the upload declared ${upload.size}.`,
      { details: { uploadId: upload.id, declaredBytes: upload.size, receivedBytes: total, missingParts } },
    );
  }
}

/**
 * Assembles a session's parts in order into one item, hashes it and stores it by SHA-256 (the
 * upload's assembly step): the session is COMPLETING from here, so no part changes under it, and
 * an assembly cut short is run again by the next completion. A dry run assembles and stores nothing.
 */
export async function assembleMediaUpload(
  deps: { db: DbOrTrx; clock: Clock; blobs: BlobStore },
  principal: Principal,
  target: UploadTarget,
  uploadId: string,
  dryRun: boolean,
): Promise<{ sha256: string; size: number } | null> {
  const { upload } = await openUpload(deps, principal, target, uploadId);
  // Completed already (a client retrying after a lost answer): nothing to assemble.
  if (upload.state === 'COMPLETED') return null;
  assertState(upload, 'OPEN', 'COMPLETING');
  // COMPLETING before the parts are read: a part put waits on the session's row, then finds it closed.
  const setState = (from: 'OPEN' | 'COMPLETING', to: 'OPEN' | 'COMPLETING') =>
    deps.db
      .updateTable('media_uploads')
      .set({ state: to, updated_at: deps.clock.now() })
      .where('id', '=', upload.id)
      .where('state', '=', from)
      .executeTakeFirst();
  const closing = !dryRun && upload.state === 'OPEN';
  if (closing && (await setState('OPEN', 'COMPLETING')).numUpdatedRows === 0n) {
    throw new DomainError('conflict', `Upload ${upload.id} changed meanwhile; try again.`, { details: { uploadId: upload.id } });
  }
  const parts = await partRows(deps.db, upload.id);
  try {
    assertWhole(upload, parts);
  } catch (err) {
    // Incomplete: OPEN again, so the missing parts may come.
    if (closing) await setState('COMPLETING', 'OPEN');
    throw err;
  }
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const bytes = await deps.blobs.get(part.sha256.toString('hex'));
    hash.update(bytes);
    chunks.push(bytes);
  }
  const sha256 = hash.digest('hex');
  if (!dryRun) await deps.blobs.put([{ sha256, bytes: Buffer.concat(chunks, upload.size) }]);
  return { sha256, size: upload.size };
}

/**
 * Completes an assembled session: the item goes into the property's media set (main branch, path
 * `uploads/<upload id>`), the object named at creation gets it as its property's value through
 * the one writer, and the session is COMPLETED with the reference. Its parts are dropped.
 * Completing a COMPLETED session again answers it as it is.
 */
export async function completeMediaUpload(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  target: UploadTarget,
  uploadId: string,
  content: { sha256: string; size: number } | null,
): Promise<MediaUploadView> {
  const { property, upload } = await openUpload(deps, principal, target, uploadId);
  if (upload.state === 'COMPLETED' || content === null) {
    assertState(upload, 'COMPLETED');
    return uploadView(deps.db, property, upload);
  }
  // OPEN only in a dry run, whose assembly left the state as it was.
  assertState(upload, 'OPEN', 'COMPLETING');
  const branch = await branchOf(deps.db, upload.media_set_id, {});
  const itemId = randomUUID();
  await deps.db
    .insertInto('media_items')
    .values({
      id: itemId,
      branch_id: branch.id,
      transaction_id: null,
      visible: true,
      path: `uploads/${upload.id}`,
      sha256: Buffer.from(content.sha256, 'hex'),
      size: content.size,
      mime_type: upload.mime_type,
      created_by: principal.account.id,
    })
    .execute();
  if (upload.primary_key !== null) {
    const key = JSON.parse(upload.primary_key) as string | number;
    await setMediaProperty(deps.db, property, principal.account.id, key, await mediaReferenceOf(deps.db, itemId));
  }
  await deps.db.deleteFrom('media_upload_parts').where('upload_id', '=', upload.id).execute();
  const done = await deps.db
    .updateTable('media_uploads')
    .set({ state: 'COMPLETED', media_item_id: itemId, updated_at: deps.clock.now() })
    .where('id', '=', upload.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return uploadView(deps.db, property, done);
}
