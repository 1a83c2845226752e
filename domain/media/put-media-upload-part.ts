import { createHash } from 'node:crypto';
import { MEDIA_LIMITS, type MediaUploadPartView } from '../../schemas/media.ts';
import { problem, reportedProblems } from '../../schemas/problems.ts';
import type { BlobStore } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { mediaUploadItemLimit } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import type { UploadHashes } from './upload-hashes.ts';
import { assertItemLimit, assertState, openUpload, partRows, type UploadTarget } from './uploads.ts';

export interface UploadPart {
  uploadId: string;
  partNumber: number;
}

const stored = (part: { sha256: string; size: number }, partNumber: number): MediaUploadPartView => ({
  partNumber,
  sizeBytes: part.size,
  sha256: part.sha256,
});

/**
 * Reads one part (at most uploadPartBytes) and stores it in the content store by SHA-256, before
 * the write's transaction (the store is not transactional). The session is checked first, so a
 * refused part reads no body; a part larger than the declared item is refused. A dry run stores nothing.
 * `read` gives every chunk to `each` as it arrives, then the whole body: the part's hash, and the
 * session's running item hash in this process (`uploadHashes`) when the part continues it, are
 * taken chunk by chunk, so neither waits after the last byte; the running hash keeps this part only
 * once it is stored.
 */
export async function acceptUploadPart(
  deps: { db: DbOrTrx; clock: Clock; blobs: BlobStore; uploadHashes?: UploadHashes | undefined },
  principal: Principal,
  target: UploadTarget,
  part: UploadPart,
  read: (limit: number, each: (chunk: Buffer) => void) => Promise<Buffer>,
  dryRun: boolean,
): Promise<{ sha256: string; size: number }> {
  const { upload } = await openUpload(deps, principal, target, part.uploadId);
  assertState(upload, 'OPEN');
  // The bytes sent count against the credential's cap too, not only the size declared at open.
  const others = (await partRows(deps.db, upload.id)).reduce((sum, p) => sum + (p.part_number === part.partNumber ? 0 : p.size), 0);
  const room = mediaUploadItemLimit(principal) - others;
  if (room <= 0) assertItemLimit(principal, others + 1);
  const hash = createHash('sha256');
  const feed = dryRun ? undefined : deps.uploadHashes?.begin(upload.id, part.partNumber);
  let fed = 0;
  const bytes = await read(Math.min(MEDIA_LIMITS.uploadPartBytes, upload.size, room), (chunk) => {
    hash.update(chunk);
    feed?.update(chunk);
    fed += chunk.length;
  });
  // The blob's address is the hash of what was fed: a reader answering other bytes would store them under a wrong one.
  if (fed !== bytes.length) throw new Error(`part body read as ${bytes.length} bytes, ${fed} hashed`);
  if (bytes.length === 0) {
    throw new DomainError('invalid_payload', undefined, {
      details: reportedProblems([problem('body', 'too_small', 'a part holds at least one byte')]),
    });
  }
  const sha256 = hash.digest('hex');
  if (dryRun) return { sha256, size: bytes.length };
  await deps.blobs.put([{ sha256, bytes }]);
  deps.uploadHashes?.received(upload.id, part.partNumber, { sha256, size: bytes.length }, bytes, feed);
  return { sha256, size: bytes.length };
}

/**
 * Records a stored part under its number while the session is OPEN: the same number sent again
 * replaces it (the same bytes leave it as it was), so a client re-sends any part it is unsure of.
 */
export async function putMediaUploadPart(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  target: UploadTarget,
  part: UploadPart,
  content: { sha256: string; size: number },
): Promise<MediaUploadPartView> {
  const { upload } = await openUpload(deps, principal, target, part.uploadId);
  assertState(upload, 'OPEN');
  const row = { upload_id: upload.id, part_number: part.partNumber, sha256: Buffer.from(content.sha256, 'hex'), size: content.size };
  await deps.db
    .insertInto('media_upload_parts')
    .values(row)
    .onConflict((oc) => oc.columns(['upload_id', 'part_number']).doUpdateSet({ sha256: row.sha256, size: row.size }))
    .execute();
  await deps.db.updateTable('media_uploads').set({ updated_at: deps.clock.now() }).where('id', '=', upload.id).execute();
  return stored(content, part.partNumber);
}
