import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
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

/** A part's body as the request brings it. */
export interface PartBody {
  /** Its declared length (Content-Length), if any. */
  length: number | undefined;
  /** The SHA-256 (hex) the client declares for its bytes (Content-Digest), if any. */
  sha256: string | undefined;
  /** Reads it whole (at most `limit` bytes), giving every chunk to `each` as it arrives. */
  read(limit: number, each: (chunk: Buffer) => void): Promise<Buffer>;
}

const mismatch = () =>
  new DomainError('invalid_payload', 'The part’s bytes do not match its Content-Digest.', {
    details: reportedProblems([problem('Content-Digest', 'digest_mismatch', 'the SHA-256 of the bytes received differs')]),
  });

/**
 * Reads one part (at most uploadPartBytes) and stores it in the content store by SHA-256, before
 * the write's transaction (the store is not transactional). The session is checked first, so a
 * refused part reads no body; a part larger than the declared item is refused. A dry run stores nothing.
 * `read` gives every chunk to `each` as it arrives, then the whole body: the part's hash, and the
 * session's running item hash in this process (`uploadHashes`) when the part continues it, are
 * taken chunk by chunk, so neither waits after the last byte; the running hash keeps this part only
 * once it is stored.
 *
 * A part whose hash the client declares, of a declared length, goes to an object store as it
 * arrives, under that hash: all but its last chunk while they come, the last only once the bytes
 * received hash to the declaration. Otherwise the write is abandoned (the store keeps nothing
 * under the hash) and the part refused; without a declaration it is stored once read whole.
 */
export async function acceptUploadPart(
  deps: { db: DbOrTrx; clock: Clock; blobs: BlobStore; uploadHashes?: UploadHashes | undefined },
  principal: Principal,
  target: UploadTarget,
  part: UploadPart,
  body: PartBody,
  dryRun: boolean,
): Promise<{ sha256: string; size: number }> {
  const { upload } = await openUpload(deps, principal, target, part.uploadId);
  assertState(upload, 'OPEN');
  // The bytes sent count against the credential's cap too, not only the size declared at open.
  const others = (await partRows(deps.db, upload.id)).reduce((sum, p) => sum + (p.part_number === part.partNumber ? 0 : p.size), 0);
  const room = mediaUploadItemLimit(principal) - others;
  if (room <= 0) assertItemLimit(principal, others + 1);
  const limit = Math.min(MEDIA_LIMITS.uploadPartBytes, upload.size, room);
  const hash = createHash('sha256');
  const feed = dryRun ? undefined : deps.uploadHashes?.begin(upload.id, part.partNumber);
  const streamed =
    !dryRun && body.sha256 !== undefined && body.length !== undefined && body.length > 0 && body.length <= limit
      ? streamedPut(deps.blobs, body.sha256, body.length)
      : undefined;
  let fed = 0;
  try {
    const bytes = await body.read(limit, (chunk) => {
      hash.update(chunk);
      feed?.update(chunk);
      streamed?.write(chunk);
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
    if (body.sha256 !== undefined && sha256 !== body.sha256) throw mismatch();
    if (dryRun) return { sha256, size: bytes.length };
    if (streamed) await streamed.end();
    else await deps.blobs.put([{ sha256, bytes }]);
    deps.uploadHashes?.received(upload.id, part.partNumber, { sha256, size: bytes.length }, bytes, feed);
    return { sha256, size: bytes.length };
  } catch (err) {
    await streamed?.abandon();
    throw err;
  }
}

/**
 * A put into the store's stream (`BlobStore.putStream`) that holds back the last chunk given until
 * `end`, so the store cannot complete the object before the caller has checked every byte.
 * Chunks wait in the stream while the store is slower (views of the part's one Buffer: no copy).
 */
function streamedPut(blobs: BlobStore, sha256: string, size: number) {
  if (!blobs.putStream) return undefined;
  const body = new PassThrough();
  const storing = blobs.putStream(sha256, size, body);
  // Awaited by `end` or `abandon`; until then a failure must not count as unhandled.
  storing.catch(() => {});
  let held: Buffer | undefined;
  return {
    write(chunk: Buffer) {
      if (held) body.write(held);
      held = chunk;
    },
    async end() {
      body.end(held);
      await storing;
    },
    /** Cuts the write off; resolves once the store holds nothing of it. */
    async abandon() {
      body.destroy(new Error('part abandoned'));
      await storing.catch(() => {});
    },
  };
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
