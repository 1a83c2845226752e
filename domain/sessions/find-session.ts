import { licensesOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { equalHashes, sha256 } from '../security/index.ts';

/**
 * The session behind a token, or undefined when it is unknown, expired or its account inactive.
 * `appHost` names the app host a handed-off session must be for; without it only {base_url}
 * sessions count, so an app host's cookie never works as the service's.
 */
export async function findSession(
  db: DbOrTrx,
  token: string,
  appHost?: string,
): Promise<Extract<Principal, { kind: 'session' }> | undefined> {
  const hash = sha256(token);
  const row = await db
    .selectFrom('web_sessions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.hash', 's.expires_at', 'a.id', 'a.username', 'a.email', 'a.status', 'a.platform_staff'])
    .where('s.hash', '=', hash)
    .where((eb) => (appHost === undefined ? eb('s.host', 'is', null) : eb('s.host', '=', appHost)))
    .executeTakeFirst();
  if (!row || !equalHashes(row.hash, hash) || row.expires_at <= new Date() || row.status !== 'active') return undefined;
  const licenses = (await licensesOf(db, row.id)).map((l) => ({ companyId: l.companyId, cellId: l.cellId, role: l.role }));
  return {
    kind: 'session',
    account: { id: row.id, username: row.username, email: row.email, platformStaff: row.platform_staff },
    sessionHash: hash,
    licenses,
  };
}
