import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';

/** Sign-out: the session ends on the server (a key caller has none to end). */
export async function endSession(db: DbOrTrx, principal: Principal): Promise<void> {
  if (principal.kind === 'session') await db.deleteFrom('web_sessions').where('hash', '=', principal.sessionHash).execute();
}
