import type { MediaUploadView } from '../../schemas/media.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { assertState, openUpload, type UploadTarget, uploadView } from './uploads.ts';

/**
 * Purges a session that is not COMPLETED: its parts are dropped and it is PURGED (kept, so a
 * client learns what became of it; deleting it again answers the same). The parts' bytes, once no
 * row names them, go with the blob sweep (domain/apps/sweep-unreferenced-blobs.ts).
 */
export async function deleteMediaUpload(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  target: UploadTarget,
  uploadId: string,
): Promise<MediaUploadView> {
  const { property, upload } = await openUpload(deps, principal, target, uploadId);
  // A COMPLETING session's workflow finds it PURGED and attaches nothing; a FAILED one stays as it ended.
  assertState(upload, 'OPEN', 'COMPLETING', 'PURGED');
  await deps.db.deleteFrom('media_upload_parts').where('upload_id', '=', upload.id).execute();
  const purged = await deps.db
    .updateTable('media_uploads')
    .set({ state: 'PURGED', updated_at: deps.clock.now() })
    .where('id', '=', upload.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return uploadView(deps.db, property, purged);
}
