import { writeLogRecords } from '../app-log/write-log-record.ts';
import type { Channel } from '../db/database.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import {
  type AnonymousAccess,
  type AppAccess,
  anonymousAppAccess,
  appRoleOf,
  isDeveloperOf,
  isMemberOf,
  lowerRole,
  ticketAdmits,
} from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { consume, type Limit } from '../rate-limit/rate-limit.ts';
import { isInternetTier } from '../resources/app-grant.ts';
import { findAppGrants } from '../sharing/find-app-grants.ts';
import { blobBytes } from './blob-bytes.ts';
import { type IssuedTicket, issueTicket, type OpeningPrincipal, ticketSourceOf } from './issue-ticket.ts';
import { findChannelVersion, type HostedApp, type HostedVersion } from './repository.ts';
import { visitorOf } from './visitor.ts';

export interface AppTarget {
  namespace: string;
  slug: string;
  channel: Channel;
}

export type OpenedApp =
  | {
      opened: true;
      app: HostedApp;
      version: HostedVersion;
      access: Extract<AppAccess, { allowed: true }>;
      entry: Buffer;
      ticket: IssuedTicket;
    }
  | { opened: false; app: HostedApp; version: HostedVersion; access: Extract<AppAccess, { allowed: false }> };

/**
 * May this principal open the app's channel now, and with which role? Judged by the manifest of
 * the version the channel shows and the app's live shares. `linkShareId`: the public link the
 * visitor came through (a ticket carries the share it was opened with).
 */
export async function accessToApp(
  deps: Pick<DomainDeps, 'db' | 'clock'>,
  principal: Principal,
  target: AppTarget,
  linkShareId: string | null = null,
) {
  const { app, version } = await findChannelVersion(deps.db, target.namespace, target.slug, target.channel);
  const visitor = await visitorOf(deps.db, principal);
  const shares = await findAppGrants(deps.db, {
    app,
    visitor,
    linkShareId: linkShareId ?? (principal.kind === 'ticket' ? principal.ticket.shareId : null),
    now: deps.clock.now(),
  });
  const access = appRoleOf(
    visitor,
    {
      namespace: app.namespace,
      companyId: app.companyId,
      channel: target.channel,
      access: version.manifest.auth.access,
      publicLink: version.manifest.auth.publicLink,
    },
    shares,
  );
  // A ticket (or an app token) acts with at most the role it was issued with.
  if (principal.kind === 'ticket' && access.allowed)
    return { app, version, access: { ...access, role: lowerRole(access.role, principal.ticket.role) } };
  return { app, version, access };
}

/**
 * The caller's access to an app it names, for deciding what it may do there: a ticket's (or app
 * token's) own role in its own app; the company's developers as developer on any channel (the
 * app-open rule's first answer, without its queries); anyone else by the app-open rule for the
 * channel (app_not_found when the channel shows no version).
 */
export async function callerAccess(
  deps: Pick<DomainDeps, 'db' | 'clock'>,
  principal: Principal,
  app: HostedApp,
  channel: Channel,
): Promise<AppAccess> {
  if (principal.kind === 'ticket' && ticketAdmits(principal, app)) {
    const { role, shareId } = principal.ticket;
    return { allowed: true, role, member: isMemberOf(principal, app.companyId), viaShare: shareId };
  }
  if (isDeveloperOf(principal, app.companyId)) return { allowed: true, role: 'developer', member: true, viaShare: null };
  return (await accessToApp(deps, principal, { namespace: app.namespace, slug: app.slug, channel })).access;
}

/**
 * Each open issues an 8-hour ticket and writes a usage/open record, so opens are limited per
 * account and app (429 rate_limited past it). A ticket cannot be handed out again instead: only
 * its hash is kept.
 */
const OPEN_LIMIT: Limit = { name: 'app-open', max: 30, windowSeconds: 60 };

/**
 * An app open: the access check, the open limit, the entry page's bytes, a fresh ticket for the
 * visitor and the usage/open record (both in one transaction).
 */
export async function openApp(
  deps: DomainDeps,
  principal: OpeningPrincipal,
  target: AppTarget,
  linkShareId: string | null = null,
): Promise<OpenedApp> {
  const { app, version, access } = await accessToApp(deps, principal, target, linkShareId);
  if (!access.allowed) return { opened: false, app, version, access };
  // Counted on the pool, so refused opens count too.
  await consume(deps.db, OPEN_LIMIT, `${principal.account.id}:${app.id}`, deps.clock);
  const entry = await entryOf(deps, version);
  const ticket = await deps.db.transaction().execute(async (trx) => {
    const issued = await issueTicket(trx, deps.clock, {
      accountId: principal.account.id,
      appId: app.id,
      channel: target.channel,
      versionId: version.id,
      shareId: access.viaShare,
      source: ticketSourceOf(principal),
      role: access.role,
    });
    await writeLogRecords(trx, [openRecord(deps, app, version, target.channel, principal.account.id, access.viaShare)]);
    return issued;
  });
  return { opened: true, app, version, access, entry, ticket };
}

/** The entry page's bytes; an app without an interface has none (404). */
async function entryOf(deps: DomainDeps, version: HostedVersion): Promise<Buffer> {
  const entryPath = version.manifest.entry;
  const entryFile = entryPath === null ? undefined : version.files.get(entryPath);
  if (!entryFile) throw new DomainError('not_found', 'This app has no interface (skills and APIs only); see its about page.');
  return blobBytes(deps, entryFile.sha256);
}

/** The usage/open record of one open (spec App log): visitor (null: anonymous), version, channel, share. */
const openRecord = (
  deps: Pick<DomainDeps, 'clock'>,
  app: HostedApp,
  version: HostedVersion,
  channel: Channel,
  accountId: string | null,
  viaShare: string | null,
) => ({
  appId: app.id,
  at: deps.clock.now(),
  kind: 'usage' as const,
  source: 'service' as const,
  name: 'open',
  accountId,
  versionId: version.id,
  channel,
  data: { viaShare },
});

/**
 * An anonymous visitor's access to an app (no credential): the policy's anonymous rule on the
 * version the channel shows and the app's tier now (app_not_found when the channel shows none).
 */
export async function anonymousAccessToApp(deps: Pick<DomainDeps, 'db'>, target: AppTarget) {
  const { app, version } = await findChannelVersion(deps.db, target.namespace, target.slug, target.channel);
  const access: AnonymousAccess = anonymousAppAccess(
    { channel: target.channel, semantic: version.manifest.semantic },
    await isInternetTier(deps.db, app),
  );
  return { app, version, access };
}

/**
 * An anonymous open of an internet-tier app: the access check, the open limit (per address, as
 * there is no account), the entry page's bytes and a usage/open record without a visitor. Never a
 * ticket: the page reads, it calls nothing. `entry` is null when the open is refused.
 */
export async function openAppAnonymously(deps: DomainDeps, target: AppTarget, address: string) {
  const { app, version, access } = await anonymousAccessToApp(deps, target);
  if (!access.allowed) return { app, version, access, entry: null };
  // Counted on the pool, so refused opens count too.
  await consume(deps.db, OPEN_LIMIT, `anonymous:${address}:${app.id}`, deps.clock);
  const entry = await entryOf(deps, version);
  await deps.db.transaction().execute((trx) => writeLogRecords(trx, [openRecord(deps, app, version, target.channel, null, null)]));
  return { app, version, access, entry };
}
