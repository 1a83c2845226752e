import type { CameraView } from '../../schemas/vision.ts';
import { CAMERA_LIMITS } from '../../schemas/vision.ts';
import type { CamerasTable, DbOrTrx } from '../db/index.ts';

export type CameraRow = Omit<CamerasTable, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date };

export const findCompanyByCell = (db: DbOrTrx, cellId: string) =>
  db.selectFrom('companies').select(['id', 'cell_id']).where('cell_id', '=', cellId).executeTakeFirst();

export const cameraRows = (db: DbOrTrx, companyId: string) => db.selectFrom('cameras').selectAll().where('company_id', '=', companyId);

export const findCamera = (db: DbOrTrx, companyId: string, name: string): Promise<CameraRow | undefined> =>
  cameraRows(db, companyId).where('name', '=', name).executeTakeFirst();

/** Until when attempts are paused after a rejected credential; null when they are not. */
export function pausedUntil(row: Pick<CameraRow, 'credential_rejected_at'>, now: Date): Date | null {
  if (!row.credential_rejected_at) return null;
  const until = new Date(row.credential_rejected_at.getTime() + CAMERA_LIMITS.rejectedPauseMs);
  return until > now ? until : null;
}

export function cameraView(row: CameraRow, now: Date): CameraView {
  return {
    name: row.name,
    kind: row.kind,
    url: row.url,
    maxViewers: row.max_viewers,
    credentials: row.credential_sealed ? 'set' : 'none',
    attemptsPausedUntil: pausedUntil(row, now)?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
