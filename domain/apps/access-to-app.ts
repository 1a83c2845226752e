import { visitorOf } from '../companies/index.ts';
import type { Channel } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { cacheFamily, readThrough } from '../keys/index.ts';
import {
  type AnonymousAccess,
  type AppAccess,
  anonymousAppAccess,
  appRoleOf,
  isDeveloperOf,
  isMemberOf,
  lowerRole,
  ticketAdmits,
  withinAppMarkings,
} from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { clearedForApp, findAppGrants, isInternetTier, nextAccessExpiry } from '../resources/index.ts';
import { findChannelVersion, type HostedApp } from './hosted-apps.ts';

export interface AppTarget {
  namespace: string;
  slug: string;
  channel: Channel;
}

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
  const visitor = await visitorOf(deps.db, principal, deps.clock.now());
  const shares = await findAppGrants(deps.db, {
    app,
    visitor,
    linkShareId: linkShareId ?? (principal.kind === 'ticket' ? principal.ticket.shareId : null),
    now: deps.clock.now(),
  });
  const access = withinAppMarkings(
    appRoleOf(
      visitor,
      {
        namespace: app.namespace,
        companyId: app.companyId,
        channel: target.channel,
        access: version.manifest.auth.access,
        publicLink: version.manifest.auth.publicLink,
      },
      shares,
    ),
    await clearedForApp(deps, { accountId: principal.account.id, now: deps.clock.now() }, app),
  );
  // A ticket (or an app token) acts with at most the role it was issued with.
  if (principal.kind === 'ticket' && access.allowed)
    return { app, version, access: { ...access, role: lowerRole(access.role, principal.ticket.role) } };
  return { app, version, access };
}

type Decided = Awaited<ReturnType<typeof accessToApp>>;

/**
 * accessToApp and when it may change with no write to record it (`nextAccessExpiry`), judged at
 * one instant, so whatever the decision took as live expires after it. Expiries only take access
 * away, so a refusal has no end by time (null).
 */
export async function accessToAppUntil(
  deps: Pick<DomainDeps, 'db' | 'clock'>,
  principal: Principal,
  target: AppTarget,
  linkShareId: string | null = null,
): Promise<Decided & { expiresBy: Date | null }> {
  const now = deps.clock.now();
  const decided = await accessToApp({ ...deps, clock: { now: () => now } }, principal, target, linkShareId);
  const expiresBy = decided.access.allowed
    ? await nextAccessExpiry(deps.db, { appId: decided.app.id, accountId: principal.account.id, now })
    : null;
  return { ...decided, expiresBy };
}
/** accessToApp's answers by credential and target; `until` (ms): a share or membership it rests on expires then. */
const DECISIONS = cacheFamily<{ decided: Decided; until: number }>('app-access');

/** The credential a decision is kept for; a ticket's role and share are part of what it decides. */
function credentialOf(principal: Principal): string {
  if (principal.kind === 'key') return `key:${principal.key.id}:${principal.agent?.id ?? ''}`;
  if (principal.kind === 'session') return `session:${principal.sessionHash.toString('hex')}`;
  return `ticket:${principal.ticket.id}:${principal.ticket.role}:${principal.ticket.shareId ?? ''}`;
}

/**
 * accessToApp, kept in the principal cache per credential and target while nothing it rests on
 * changed: every change to licenses, shares, grants, channel pointers, groups or markings empties
 * the cache in every process, and the first expiry among the visitor's memberships and the app's
 * shares ends the entry. App pages call the API with their ticket many times a second, so this is
 * the difference between no query and several per call.
 */
export async function rememberedAccessToApp(
  deps: Pick<DomainDeps, 'db' | 'clock' | 'principals'>,
  principal: Principal,
  target: AppTarget,
) {
  const kept = await readThrough(
    deps,
    DECISIONS,
    [credentialOf(principal), target.namespace, target.slug, target.channel].join('\u0000'),
    async () => {
      const { expiresBy, ...decided } = await accessToAppUntil(deps, principal, target);
      return { decided, until: expiresBy?.getTime() ?? Number.POSITIVE_INFINITY };
    },
    (entry) => entry.until > deps.clock.now().getTime(),
  );
  // accessToApp answers or throws.
  return kept!.decided;
}

/**
 * The caller's access to an app it names, for deciding what it may do there: a ticket's (or app
 * token's) own role in its own app; the company's developers as developer on any channel (the
 * app-open rule's first answer, without its queries); anyone else by the app-open rule for the
 * channel (app_not_found when the channel shows no version). The app's markings bind all of them.
 */
export async function callerAccess(
  deps: Pick<DomainDeps, 'db' | 'clock'>,
  principal: Principal,
  app: HostedApp,
  channel: Channel,
): Promise<AppAccess> {
  const cleared = () => clearedForApp(deps, { accountId: principal.account.id, now: deps.clock.now() }, app);
  if (principal.kind === 'ticket' && ticketAdmits(principal, app)) {
    const { role, shareId } = principal.ticket;
    // What admitted it is the ticket's own record (it ends with it); nothing is issued from here.
    return withinAppMarkings(
      { allowed: true, role, member: isMemberOf(principal, app.companyId), viaShare: shareId, viaGrant: null },
      await cleared(),
    );
  }
  if (isDeveloperOf(principal, app.companyId))
    return withinAppMarkings({ allowed: true, role: 'developer', member: true, viaShare: null, viaGrant: null }, await cleared());
  return (await accessToApp(deps, principal, { namespace: app.namespace, slug: app.slug, channel })).access;
}

/**
 * An anonymous visitor's access to an app (no credential): the policy's anonymous rule on the
 * version the channel shows and the app's tier now (app_not_found when the channel shows none).
 */
export async function anonymousAccessToApp(deps: Pick<DomainDeps, 'db'>, target: AppTarget) {
  const { app, version } = await findChannelVersion(deps.db, target.namespace, target.slug, target.channel);
  // A marked app is never on the internet: the anonymous visitor is cleared for nothing.
  const access: AnonymousAccess = anonymousAppAccess(
    { channel: target.channel, semantic: version.manifest.semantic },
    (await isInternetTier(deps.db, app)) && (await clearedForApp(deps, null, app)),
  );
  return { app, version, access };
}
