import type { ShareView } from '../../schemas/sharing.ts';
import type { DbOrTrx } from '../db/database.ts';
import type { HostedApp } from '../hosting/repository.ts';
import { liveShare, shareRows } from './repository.ts';
import { shareView } from './share-view.ts';

/** The app's live shares, oldest first; public links show their prefix only. */
export async function listShares(db: DbOrTrx, app: HostedApp, now: Date): Promise<ShareView[]> {
  const rows = await shareRows(db).where('s.app_id', '=', app.id).where(liveShare(now)).orderBy('s.created_at').orderBy('s.id').execute();
  return rows.map(shareView);
}
