import type { DbOrTrx } from '../db/database.ts';
import { endSessionsOf } from './repository.ts';

/** A checked account takes its new (already hashed) password; its other sessions end with the old one. */
export async function changePassword(db: DbOrTrx, accountId: string, newHash: string): Promise<void> {
  await db.updateTable('accounts').set({ password_hash: newHash, must_change_password: false }).where('id', '=', accountId).execute();
  await endSessionsOf(db, accountId);
}
