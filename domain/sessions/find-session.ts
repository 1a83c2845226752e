import { licensesOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { cacheFamily, readThrough } from '../keys/index.ts';
import type { Principal } from '../principal.ts';
import { equalHashes, sha256 } from '../security/index.ts';

type SessionPrincipal = Extract<Principal, { kind: 'session' }>;

/** Valid sessions by token hash and app host; `expiresAt` (ms): it stops admitting by itself then. */
const SESSIONS = cacheFamily<{ principal: SessionPrincipal; expiresAt: number }>('session');

/**
 * The session behind a token, or undefined when it is unknown, expired or its account inactive.
 * `appHost` names the app host a handed-off session must be for; without it only {base_url}
 * sessions count, so an app host's cookie never works as the service's. Valid sessions are kept
 * in the principal cache, which every change to sessions, accounts and licenses empties.
 */
export async function findSession(
  deps: Pick<DomainDeps, 'db' | 'principals'>,
  token: string,
  appHost?: string,
): Promise<SessionPrincipal | undefined> {
  const hash = sha256(token);
  const found = await readThrough(
    deps,
    SESSIONS,
    `${hash.toString('hex')}:${appHost ?? ''}`,
    () => lookUp(deps.db, hash, appHost),
    (s) => s.expiresAt > Date.now(),
  );
  return found?.principal;
}

async function lookUp(db: DbOrTrx, hash: Buffer, appHost: string | undefined) {
  const row = await db
    .selectFrom('web_sessions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.hash', 's.expires_at', 'a.id', 'a.username', 'a.email', 'a.status', 'a.platform_staff'])
    .where('s.hash', '=', hash)
    .where((eb) => (appHost === undefined ? eb('s.host', 'is', null) : eb('s.host', '=', appHost)))
    .executeTakeFirst();
  if (!row || !equalHashes(row.hash, hash) || row.expires_at <= new Date() || row.status !== 'active') return undefined;
  const licenses = (await licensesOf(db, row.id)).map((l) => ({ companyId: l.companyId, cellId: l.cellId, role: l.role }));
  const principal: SessionPrincipal = {
    kind: 'session',
    account: { id: row.id, username: row.username, email: row.email, platformStaff: row.platform_staff },
    sessionHash: hash,
    licenses,
  };
  return { principal, expiresAt: row.expires_at.getTime() };
}
