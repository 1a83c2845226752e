import { createHash } from 'node:crypto';
import type { MediaUploadFailure } from '../../schemas/media.ts';
import { type BlobStore, CorruptBlobError, MissingBlobError } from '../apps/index.ts';
import type { Db } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { recordCompositeItem } from './composite-items.ts';
import type { UploadHashes } from './upload-hashes.ts';
import { partRows } from './uploads.ts';

// The assembly of a COMPLETING session, run by its workflow's activity. Where this process received
// the session's parts in order, it hashed the item then (upload-hashes.ts) and no part is read here.
// Otherwise the parts are read once from the content store, streamed, never held whole: each is
// checked (there, its size, its hash) and the item is hashed on the way. The item is not written
// again: several parts are recorded as a composite item under the item's hash (composite-items.ts);
// one part is the item itself (its hash is the item's). Memory stays at a chunk of the store's
// stream whatever the item's size. Safe to run again: a composite is recorded once.

export type AssemblyOutcome =
  | { outcome: 'assembled'; sha256: string; size: number }
  | { outcome: 'failed'; code: MediaUploadFailure }
  /** Not COMPLETING (purged, failed or completed meanwhile): nothing to do. */
  | { outcome: 'skipped' };

class AssemblyFailure extends Error {
  readonly code: MediaUploadFailure;
  constructor(code: MediaUploadFailure, message: string) {
    super(message);
    this.code = code;
  }
}

/** Ends a COMPLETING session FAILED with its reason (its parts are dropped: a failed session takes none). */
export async function failMediaUpload(deps: { db: Db; clock: Clock }, uploadId: string, code: MediaUploadFailure, message: string) {
  await deps.db.transaction().execute(async (trx) => {
    const failed = await trx
      .updateTable('media_uploads')
      .set({ state: 'FAILED', failure_code: code, failure_message: message, updated_at: deps.clock.now() })
      .where('id', '=', uploadId)
      .where('state', '=', 'COMPLETING')
      .executeTakeFirst();
    if (failed.numUpdatedRows > 0n) await trx.deleteFrom('media_upload_parts').where('upload_id', '=', uploadId).execute();
  });
}

export async function assembleMediaUpload(
  deps: { db: Db; clock: Clock; blobs: BlobStore; uploadHashes?: UploadHashes | undefined },
  uploadId: string,
  /** Called with the bytes read so far (the activity heartbeats with it). */
  progress: (bytes: number) => void = () => undefined,
): Promise<AssemblyOutcome> {
  const upload = await deps.db.selectFrom('media_uploads').select(['id', 'state', 'size']).where('id', '=', uploadId).executeTakeFirst();
  if (upload?.state !== 'COMPLETING') return { outcome: 'skipped' };
  const parts = await partRows(deps.db, uploadId);
  let read = 0;
  async function readPart(part: (typeof parts)[number], whole: ReturnType<typeof createHash>) {
    const own = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of deps.blobs.stream(part.sha256.toString('hex'))) {
        size += chunk.length;
        if (size > part.size) break;
        own.update(chunk);
        whole.update(chunk);
        read += chunk.length;
        progress(read);
      }
    } catch (err) {
      if (err instanceof MissingBlobError) {
        throw new AssemblyFailure('media_upload_part_missing', `The bytes of part ${part.part_number} are no longer stored.`);
      }
      throw err;
    }
    if (size !== part.size) {
      throw new AssemblyFailure(
        'media_upload_size_mismatch',
        `Part ${part.part_number} holds ${size > part.size ? 'more than' : size} bytes; ${part.size} were recorded.`,
      );
    }
    if (!own.digest().equals(part.sha256)) {
      throw new AssemblyFailure('media_upload_part_corrupt', `The bytes of part ${part.part_number} do not match its SHA-256.`);
    }
  }
  async function readAndHash() {
    const whole = createHash('sha256');
    for (const part of parts) await readPart(part, whole);
    return whole.digest('hex');
  }
  try {
    const total = parts.reduce((sum, p) => sum + p.size, 0);
    if (total !== upload.size) {
      throw new AssemblyFailure('media_upload_size_mismatch', `The parts hold ${total} bytes; the upload declared ${upload.size}.`);
    }
    const recorded = parts.map((p) => ({ sha256: p.sha256.toString('hex'), size: p.size }));
    const sha256 = deps.uploadHashes?.itemHash(uploadId, recorded) ?? (await readAndHash());
    if (parts.length > 1) {
      await recordCompositeItem(deps, sha256, recorded);
    }
    deps.uploadHashes?.forget(uploadId);
    return { outcome: 'assembled', sha256, size: upload.size };
  } catch (err) {
    const failure =
      err instanceof AssemblyFailure
        ? err
        : err instanceof CorruptBlobError
          ? new AssemblyFailure('media_upload_part_corrupt', 'The parts changed while they were assembled.')
          : null;
    // Anything else (the store unreachable) is retried: the running hash stays for the retry.
    if (!failure) throw err;
    deps.uploadHashes?.forget(uploadId);
    await failMediaUpload(deps, uploadId, failure.code, failure.message);
    return { outcome: 'failed', code: failure.code };
  }
}
