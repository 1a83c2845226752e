import { sql } from 'kysely';
import type { DbOrTrx, ShareAudience } from '../db/index.ts';
import type { ShareGrants, Visitor } from '../policy/index.ts';
import { appGrantOf } from './app-grant.ts';

// Shares are the sharing capability's records; reading which ones admit a visitor lives here, below
// hosting and sharing, because every app-access decision needs it.

/** A share is live until revoked or, for named accounts, until it expires. */
export const liveShare = (now: Date) => sql<boolean>`s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > ${now})`;

/**
 * The live shares of an app that concern one account: a share with a company it holds a license
 * in (the app's own or another), the account's own share (or, failing one, a share with a group it
 * is a live member of: a named share all the same) and, on a visit through a public link, that link
 * (when it is still live and of this app).
 */
async function findShareGrants(
  db: DbOrTrx,
  input: {
    appId: string;
    accountId: string;
    companyIds: readonly string[];
    groups: readonly string[];
    linkShareId: string | null;
    now: Date;
  },
): Promise<Omit<ShareGrants, 'resource'>> {
  const rows = await db
    .selectFrom('app_shares as s')
    .select(['s.id', 's.audience', 's.account_id'])
    .where('s.app_id', '=', input.appId)
    .where(liveShare(input.now))
    .where((eb) =>
      eb.or([
        ...(input.companyIds.length === 0 ? [] : [eb.and([eb('s.audience', '=', 'company'), eb('s.company_id', 'in', input.companyIds)])]),
        eb.and([eb('s.audience', '=', 'users'), eb('s.account_id', '=', input.accountId)]),
        ...(input.groups.length > 0 ? [eb.and([eb('s.audience', '=', 'users'), eb('s.group_id', 'in', input.groups)])] : []),
        ...(input.linkShareId ? [eb.and([eb('s.audience', '=', 'public'), eb('s.id', '=', input.linkShareId)])] : []),
      ]),
    )
    .execute();
  const pick = (audience: ShareAudience) => {
    // The account's own share first: it outlives any group membership.
    const row = rows.find((r) => r.audience === audience && r.account_id !== null) ?? rows.find((r) => r.audience === audience);
    return row ? { id: row.id } : null;
  };
  return { company: pick('company'), account: pick('users'), link: pick('public') };
}

/** Everything beyond licenses that may admit a visitor to an app: its live shares and the resource grants on it. */
export async function findAppGrants(
  db: DbOrTrx,
  input: {
    app: { id: string; namespace: string; slug: string; companyId: string | null };
    visitor: Visitor;
    linkShareId: string | null;
    now: Date;
  },
): Promise<ShareGrants> {
  const shares = await findShareGrants(db, {
    appId: input.app.id,
    accountId: input.visitor.accountId,
    companyIds: input.visitor.licenses.map((l) => l.companyId),
    groups: input.visitor.groups,
    linkShareId: input.linkShareId,
    now: input.now,
  });
  return { ...shares, resource: await appGrantOf(db, input.visitor, input.app) };
}

/** At most this many apps in a visitor's "Shared with you": a catalog page stays a page. */
const SHARED_APPS_SHOWN = 100;

/**
 * The company apps shared with a visitor: by name or with a group it is a live member of (live
 * `users` shares), or with a company it holds a license in (live `company` shares), with their
 * company's name: the candidates of its "Shared with you", each still to be admitted by the
 * app-open rule.
 */
export async function appsSharedWith(db: DbOrTrx, visitor: Visitor, now: Date) {
  const companyIds = visitor.licenses.map((l) => l.companyId);
  return db
    .selectFrom('app_shares as s')
    .innerJoin('apps as a', 'a.id', 's.app_id')
    .innerJoin('companies as c', 'c.id', 'a.company_id')
    .select(['a.namespace', 'a.slug', 'c.name as company'])
    .distinct()
    .where((eb) =>
      eb.or([
        eb.and([eb('s.audience', '=', 'users'), eb('s.account_id', '=', visitor.accountId)]),
        ...(visitor.groups.length === 0 ? [] : [eb.and([eb('s.audience', '=', 'users'), eb('s.group_id', 'in', visitor.groups)])]),
        // A share with the app's own company is no share with outsiders: its members find the app in their catalog.
        ...(companyIds.length === 0
          ? []
          : [
              eb.and([
                eb('s.audience', '=', 'company'),
                eb('s.company_id', 'in', companyIds),
                eb('s.company_id', '!=', eb.ref('a.company_id')),
              ]),
            ]),
      ]),
    )
    .where(liveShare(now))
    .orderBy('c.name')
    .orderBy('a.slug')
    .limit(SHARED_APPS_SHOWN)
    .execute();
}

/**
 * The next time a visitor's access to an app may change with no write to record it: the first
 * expiry still ahead among the visitor's group memberships (groups admit through shares, grants
 * and marking roles) and the app's live shares. Null when nothing is set to expire.
 */
export async function nextAccessExpiry(db: DbOrTrx, input: { appId: string; accountId: string; now: Date }): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | null }>`
    SELECT least(
      (SELECT min(expires_at) FROM group_members WHERE account_id = ${input.accountId} AND expires_at > ${input.now}),
      (SELECT min(expires_at) FROM app_shares WHERE app_id = ${input.appId} AND revoked_at IS NULL AND expires_at > ${input.now})
    ) AS at`.execute(db);
  return rows[0]?.at ?? null;
}
