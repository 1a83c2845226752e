import type { CreateShareInput, ShareView } from '../../schemas/sharing.ts';
import { findAccountByLogin } from '../accounts/index.ts';
import type { HostedApp } from '../apps/index.ts';
import { findCompany } from '../companies/index.ts';
import type { DbOrTrx, ShareRecordName } from '../db/index.ts';
import type { Clock, PublicAddresses } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { assertGroupOf } from '../groups/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { currentApp } from './current-app.ts';
import { newLinkToken } from './link-token.ts';
import { findLiveShare, recordShare, type ShareTarget, shareRows } from './repository.ts';
import { shareView } from './share-view.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface CreatedShare {
  share: ShareView;
  /** False when a company or users share for the same target was changed instead. */
  created: boolean;
  /** The public link, only in this answer: the store keeps its hash. */
  url?: string;
}

/**
 * Shares the app (spec C): a users share names an account (any company) or a group of the app's
 * company, whose live members it admits as a named share does. Repeating a company or users share changes its role and expiry; each
 * public share is a new link. Writes the share/* record of the app log in the same transaction.
 */
export async function createShare(
  db: DbOrTrx,
  ctx: { clock: Clock; addresses: PublicAddresses },
  principal: Principal,
  input: CreateShareInput,
): Promise<CreatedShare> {
  const app = await currentApp(db, principal, input);
  const now = ctx.clock.now();
  if (input.audience === 'public') {
    const { token, hash, prefix } = newLinkToken();
    const id = await insertShare(db, {
      app,
      actor: principal.account.id,
      audience: 'public',
      role: 'viewer',
      tokenHash: hash,
      tokenPrefix: prefix,
    });
    await recordShare(db, {
      appId: app.id,
      name: 'share/create',
      shareId: id,
      audience: 'public',
      object: prefix,
      role: 'viewer',
      expiresAt: null,
      actorId: principal.account.id,
      at: now,
    });
    return { share: await loadShare(db, id), created: true, url: `${ctx.addresses.productionBase}/s/${token}` };
  }

  const target = input.audience === 'company' ? await companyTarget(db, app, input.company) : await namedTarget(db, app, input.account);
  const expiresAt = input.expiresInDays === undefined ? null : new Date(now.getTime() + input.expiresInDays * DAY_MS);
  const existing = await findLiveShare(db, app.id, input.audience, target, now);
  let id: string;
  let name: ShareRecordName;
  if (existing) {
    id = existing.id;
    name = 'share/update';
    await db.updateTable('app_shares').set({ role: input.role, expires_at: expiresAt, updated_at: now }).where('id', '=', id).execute();
  } else {
    name = 'share/create';
    id = await insertShare(db, { app, actor: principal.account.id, audience: input.audience, role: input.role, ...target, expiresAt });
  }
  const object = input.audience === 'company' ? (input.company ?? app.namespace) : (target.accountId ?? target.groupId)!;
  await recordShare(db, {
    appId: app.id,
    name,
    shareId: id,
    audience: input.audience,
    object,
    role: input.role,
    expiresAt,
    actorId: principal.account.id,
    at: now,
  });
  return { share: await loadShare(db, id), created: !existing };
}

/** A company share admits the members of the app's own company, or of the one named (by cell id). */
async function companyTarget(db: DbOrTrx, app: HostedApp, cellId: string | undefined): Promise<ShareTarget> {
  if (!app.companyId) throw new DomainError('conflict', 'Official apps belong to no company: share them with accounts or a link.');
  return { accountId: null, groupId: null, companyId: cellId === undefined ? app.companyId : (await findCompany(db, cellId)).id };
}

/** A users share names an account (by id, username or email) or a group of the app's own company. */
async function namedTarget(db: DbOrTrx, app: HostedApp, login: string): Promise<ShareTarget> {
  if (login.startsWith('grp_')) {
    // Any group but one of the app's company is not found (never confirmed across companies).
    return { accountId: null, companyId: null, groupId: (await assertGroupOf(db, login, app.companyId)).id };
  }
  const account = login.startsWith('acc_')
    ? await db.selectFrom('accounts').selectAll().where('id', '=', login).executeTakeFirst()
    : await findAccountByLogin(db, login);
  if (!account) throw new DomainError('user_not_found', `No account ${login}.`, { details: { account: login } });
  return { accountId: account.id, companyId: null, groupId: null };
}

async function insertShare(
  db: DbOrTrx,
  s: {
    app: HostedApp;
    actor: string;
    audience: 'company' | 'users' | 'public';
    role: 'editor' | 'viewer';
    accountId?: string | null;
    companyId?: string | null;
    groupId?: string | null;
    expiresAt?: Date | null;
    tokenHash?: Buffer;
    tokenPrefix?: string;
  },
): Promise<string> {
  const id = newId('shr');
  await db
    .insertInto('app_shares')
    .values({
      id,
      app_id: s.app.id,
      audience: s.audience,
      account_id: s.accountId ?? null,
      company_id: s.companyId ?? null,
      group_id: s.groupId ?? null,
      role: s.role,
      token_hash: s.tokenHash ?? null,
      token_prefix: s.tokenPrefix ?? null,
      expires_at: s.expiresAt ?? null,
      revoked_at: null,
      created_by: s.actor,
    })
    .execute();
  return id;
}

export async function loadShare(db: DbOrTrx, id: string): Promise<ShareView> {
  return shareView(await shareRows(db).where('s.id', '=', id).executeTakeFirstOrThrow());
}
