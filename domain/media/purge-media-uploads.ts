import { MEDIA_LIMITS } from '../../schemas/media.ts';
import type { Db } from '../db/index.ts';

/**
 * One batch of the purge of abandoned sessions, run by the `media-upload-purge` schedule's
 * workflow: OPEN sessions untouched (no part, no completion) for `abandonedUploadHours` before
 * `now` become PURGED and their parts are dropped, as a DELETE would do. Sessions in use are
 * skipped (SKIP LOCKED) rather than waited on. Returns how many were purged.
 */
export async function purgeAbandonedMediaUploads(db: Db, now: Date, batchSize: number): Promise<number> {
  const cutoff = new Date(now.getTime() - MEDIA_LIMITS.abandonedUploadHours * 3600_000);
  return db.transaction().execute(async (trx) => {
    const abandoned = await trx
      .selectFrom('media_uploads')
      .select('id')
      .where('state', '=', 'OPEN')
      .where('updated_at', '<', cutoff)
      .orderBy('updated_at')
      .limit(batchSize)
      .forUpdate()
      .skipLocked()
      .execute();
    const ids = abandoned.map((u) => u.id);
    if (ids.length === 0) return 0;
    await trx.deleteFrom('media_upload_parts').where('upload_id', 'in', ids).execute();
    await trx.updateTable('media_uploads').set({ state: 'PURGED', updated_at: now }).where('id', 'in', ids).execute();
    return ids.length;
  });
}
