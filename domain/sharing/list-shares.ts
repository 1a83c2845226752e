import type { ShareView } from '../../schemas/sharing.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { liveShare } from '../resources/index.ts';
import { type AppRef, currentApp } from './current-app.ts';
import { shareRows } from './repository.ts';
import { shareView } from './share-view.ts';

/** The app's live shares, oldest first, for those who may share it; public links show their prefix only. */
export async function listShares(db: DbOrTrx, principal: Principal, ref: AppRef, now: Date): Promise<ShareView[]> {
  const app = await currentApp(db, principal, ref);
  const rows = await shareRows(db).where('s.app_id', '=', app.id).where(liveShare(now)).orderBy('s.created_at').orderBy('s.id').execute();
  return rows.map(shareView);
}
