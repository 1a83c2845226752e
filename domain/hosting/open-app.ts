import { writeLogRecords } from '../app-log/write-log-record.ts';
import type { Channel } from '../db/database.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { type AppAccess, appRoleOf, isDeveloperOf, isMemberOf, lowerRole, ticketAdmits } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { consume, type Limit } from '../rate-limit/rate-limit.ts';
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
    // What admitted it is the ticket's own record (it ends with it); nothing is issued from here.
    return { allowed: true, role, member: isMemberOf(principal, app.companyId), viaShare: shareId, viaGrant: null };
  }
  if (isDeveloperOf(principal, app.companyId)) return { allowed: true, role: 'developer', member: true, viaShare: null, viaGrant: null };
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
  const entryPath = version.manifest.entry;
  const entryFile = entryPath === null ? undefined : version.files.get(entryPath);
  if (!entryFile) throw new DomainError('not_found', 'This app has no interface (skills and APIs only); see its about page.');
  const entry = await blobBytes(deps, entryFile.sha256);
  const ticket = await deps.db.transaction().execute(async (trx) => {
    const issued = await issueTicket(trx, deps.clock, {
      accountId: principal.account.id,
      appId: app.id,
      channel: target.channel,
      versionId: version.id,
      shareId: access.viaShare,
      grant: access.viaGrant,
      source: ticketSourceOf(principal),
      role: access.role,
    });
    await writeLogRecords(trx, [
      {
        appId: app.id,
        at: deps.clock.now(),
        kind: 'usage',
        source: 'service',
        name: 'open',
        accountId: principal.account.id,
        versionId: version.id,
        channel: target.channel,
        data: { viaShare: access.viaShare },
      },
    ]);
    return issued;
  });
  return { opened: true, app, version, access, entry, ticket };
}
