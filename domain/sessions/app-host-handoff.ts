import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { equalHashes, randomBase62, sha256 } from '../security/index.ts';

// The sign-in hand-off from {base_url} to an app host (a page base on another host, whose
// browser cannot see the host-only session cookie): {base_url} mints a one-time code for its
// session, the app host redeems it for a session of its own.

export const HANDOFF_CODE_TTL_MS = 60_000;

/** A code for the {base_url} session `sessionHash`, redeemable once, on `host` only, by the browser holding `state`. */
export async function issueHandoffCode(db: DbOrTrx, clock: Clock, sessionHash: Buffer, host: string, state: string): Promise<string> {
  const code = randomBase62(24);
  await db
    .insertInto('app_handoff_codes')
    .values({
      hash: sha256(code),
      session_hash: sessionHash,
      host,
      state_hash: sha256(state),
      expires_at: new Date(clock.now().getTime() + HANDOFF_CODE_TTL_MS),
    })
    .execute();
  return code;
}

/**
 * Redeems a code on `host`: a new session there, ending with the {base_url} session it came from;
 * undefined when the code is unknown, used, expired, for another host or another browser, or the
 * session behind it is over. The code is deleted first, so of concurrent redeems one wins.
 */
export async function redeemHandoffCode(db: DbOrTrx, clock: Clock, code: string, host: string, state: string) {
  const row = await db.deleteFrom('app_handoff_codes').where('hash', '=', sha256(code)).returningAll().executeTakeFirst();
  const now = clock.now();
  if (!row || row.expires_at <= now || row.host !== host || !equalHashes(row.state_hash, sha256(state))) return undefined;
  const parent = await db
    .selectFrom('web_sessions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.account_id', 's.expires_at'])
    .where('s.hash', '=', row.session_hash)
    .where('s.host', 'is', null)
    .where('s.expires_at', '>', now)
    .where('a.status', '=', 'active')
    .executeTakeFirst();
  if (!parent) return undefined;
  const token = randomBase62(24);
  // Never outlives the session it came from.
  await db
    .insertInto('web_sessions')
    .values({ hash: sha256(token), account_id: parent.account_id, expires_at: parent.expires_at, host, parent_hash: row.session_hash })
    .execute();
  return { token, expiresAt: parent.expires_at };
}
