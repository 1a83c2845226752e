import type { BlobStore } from '../domain/apps/index.ts';
import type { Db } from '../domain/db/index.ts';
import { systemClock } from '../domain/deps.ts';
import { assembleMediaUpload, attachMediaUpload, purgeAbandonedMediaUploads, type UploadHashes } from '../domain/media/index.ts';
import { heartbeating } from './heartbeat.ts';

export function createMediaActivities(deps: { db: Db; blobs: BlobStore; uploadHashes?: UploadHashes | undefined }) {
  const base = { db: deps.db, blobs: deps.blobs, uploadHashes: deps.uploadHashes, clock: systemClock };
  return {
    /** Hashes a COMPLETING session's item (reading its parts unless this process hashed them on receipt); heartbeats with the bytes read. */
    assembleMediaUpload: (input: { uploadId: string }) => {
      let bytes = 0;
      return heartbeating(
        () =>
          assembleMediaUpload(base, input.uploadId, (read) => {
            bytes = read;
          }),
        () => bytes,
      );
    },
    /** Puts the assembled item into the property's set and the object's property; the session COMPLETED. */
    attachMediaUpload: (input: { uploadId: string; sha256: string; size: number }) =>
      attachMediaUpload(base, input.uploadId, { sha256: input.sha256, size: input.size }),
    /** One batch of the abandoned sessions' purge; `now` comes from the workflow, so time skipping applies. */
    purgeAbandonedMediaUploads: (input: { now: string; batchSize: number }) =>
      purgeAbandonedMediaUploads(deps.db, new Date(input.now), input.batchSize),
  };
}
