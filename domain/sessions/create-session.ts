import type { DbOrTrx } from '../db/index.ts';
import { randomBase62, sha256 } from '../security/index.ts';

export const SESSION_TTL_SECONDS = 12 * 60 * 60;

/**
 * A new session id at every sign-in (192 random bits); the caller's previous
 * session, if any, ends, so a planted cookie can never be upgraded.
 */
export async function createSession(db: DbOrTrx, accountId: string, previousToken: string | undefined) {
  if (previousToken) await db.deleteFrom('web_sessions').where('hash', '=', sha256(previousToken)).execute();
  const token = randomBase62(24);
  const expiresAt = new Date(Date.now() + SESSION_TTL_SECONDS * 1000);
  await db
    .insertInto('web_sessions')
    .values({ hash: sha256(token), account_id: accountId, expires_at: expiresAt })
    .execute();
  return { token, expiresAt };
}
