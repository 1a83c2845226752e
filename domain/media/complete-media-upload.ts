import type { MediaUploadView } from '../../schemas/media.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { enqueue } from '../outbox/index.ts';
import type { Principal } from '../principal.ts';
import { assertState, openUpload, partRows, type UploadTarget, uploadView } from './uploads.ts';

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
 * Completes a session: parts 1..n that add up to the declared size (media_upload_incomplete
 * otherwise, and the session stays OPEN for the missing ones), then the session is COMPLETING and
 * its assembly workflow is asked for through the outbox, in this transaction (a dry run asks for
 * nothing). The workflow streams the parts into one item, hashes it, and attaches it
 * (COMPLETED), or ends the session FAILED with a code. Completing a session that is past OPEN
 * answers it as it is, so a client polls its progress by completing again.
 */
export async function completeMediaUpload(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  target: UploadTarget,
  uploadId: string,
): Promise<MediaUploadView> {
  const { property, upload } = await openUpload(deps, principal, target, uploadId);
  if (upload.state !== 'OPEN') {
    assertState(upload, 'COMPLETING', 'COMPLETED', 'FAILED');
    return uploadView(deps.db, property, upload);
  }
  assertWhole(upload, await partRows(deps.db, upload.id));
  const completing = await deps.db
    .updateTable('media_uploads')
    .set({ state: 'COMPLETING', completed_by: principal.account.id, updated_at: deps.clock.now() })
    .where('id', '=', upload.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await enqueue(deps.db, {
    topic: 'media-upload.completing',
    key: upload.id,
    payload: { uploadId: upload.id, companyId: property.companyId },
  });
  return uploadView(deps.db, property, completing);
}
