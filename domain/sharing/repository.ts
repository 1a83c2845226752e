import { writeLogRecords } from '../app-log/index.ts';
import type { DbOrTrx, ShareAudience, ShareRecordName, ShareRole } from '../db/index.ts';
import { liveShare } from '../resources/index.ts';

/** A live public link by its token's hash. */
export async function findLiveLink(db: DbOrTrx, tokenHash: Buffer, now: Date) {
  return db
    .selectFrom('app_shares as s')
    .innerJoin('apps as a', 'a.id', 's.app_id')
    .select(['s.id', 's.token_hash', 'a.id as appId', 'a.namespace', 'a.slug'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.audience', '=', 'public')
    .where(liveShare(now))
    .executeTakeFirst();
}

/** The app a share belongs to (revoked or not), by the share's id. */
export async function findAppOfShare(db: DbOrTrx, shareId: string) {
  return db
    .selectFrom('app_shares as s')
    .innerJoin('apps as a', 'a.id', 's.app_id')
    .select(['a.namespace', 'a.slug'])
    .where('s.id', '=', shareId)
    .executeTakeFirst();
}

/** Whom a company or users share is with: one account, one group, or the members of one company. */
export interface ShareTarget {
  accountId: string | null;
  companyId: string | null;
  groupId: string | null;
}

export async function findLiveShare(db: DbOrTrx, appId: string, audience: 'company' | 'users', target: ShareTarget, now: Date) {
  let q = db
    .selectFrom('app_shares as s')
    .selectAll('s')
    .where('s.app_id', '=', appId)
    .where('s.audience', '=', audience)
    .where('s.revoked_at', 'is', null);
  if (target.accountId) q = q.where('s.account_id', '=', target.accountId);
  if (target.groupId) q = q.where('s.group_id', '=', target.groupId);
  if (target.companyId) q = q.where('s.company_id', '=', target.companyId);
  const row = await q.forUpdate().executeTakeFirst();
  // An expired share is over: the repeat makes a new one (the old row is closed first).
  if (row?.expires_at && row.expires_at <= now) {
    await db.updateTable('app_shares').set({ revoked_at: row.expires_at }).where('id', '=', row.id).execute();
    return undefined;
  }
  return row;
}

export const shareRows = (db: DbOrTrx) =>
  db
    .selectFrom('app_shares as s')
    .leftJoin('accounts as a', 'a.id', 's.account_id')
    .leftJoin('companies as c', 'c.id', 's.company_id')
    .leftJoin('groups as g', 'g.id', 's.group_id')
    .select([
      's.id',
      's.audience',
      's.role',
      's.token_prefix',
      's.expires_at',
      's.revoked_at',
      's.created_at',
      's.updated_at',
      'a.id as account_id',
      'a.username',
      'c.cell_id',
      'c.name as company_name',
      'g.id as group_id',
      'g.name as group_name',
    ]);

/** A share/* record of the app log (spec: share and revoke; object and role). */
export async function recordShare(
  db: DbOrTrx,
  input: {
    appId: string;
    name: ShareRecordName;
    shareId: string;
    audience: ShareAudience;
    object: string;
    role: ShareRole;
    expiresAt: Date | null;
    actorId: string;
    at: Date;
  },
): Promise<void> {
  await writeLogRecords(db, [
    {
      appId: input.appId,
      at: input.at,
      kind: 'share',
      source: 'service',
      name: input.name.slice('share/'.length),
      accountId: input.actorId,
      data: {
        shareId: input.shareId,
        audience: input.audience,
        object: input.object,
        role: input.role,
        expiresAt: input.expiresAt?.toISOString() ?? null,
      },
    },
  ]);
}
