import { type AppTarget, accessToAppUntil, anonymousAccessToApp, type HostedApp, type HostedVersion } from '../apps/index.ts';
import type { Channel } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { AppAccess } from '../policy/index.ts';
import { consume, type Limit } from '../rate-limit/index.ts';
import { assertTicketReuseAllowed } from '../usage/index.ts';
import { blobBytes } from './blob-bytes.ts';
import { type IssuedTicket, issueTicket, type OpeningPrincipal, ticketSourceOf } from './issue-ticket.ts';
import { keepOpen, openKey, type ReusableOpen, reusableOpen } from './reusable-opens.ts';

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
 * An open that issues a ticket is limited per account and app (429 rate_limited past it): each
 * such ticket is a row for 8 hours. Opens that reuse a ticket (reusable-opens.ts) cost no write
 * and are not counted.
 */
const OPEN_LIMIT: Limit = { name: 'app-open', max: 30, windowSeconds: 60 };

/**
 * An app open: the access decision, the entry page's bytes, the visitor's ticket and the
 * usage/open record (written in batches: open-recorder.ts). The same credential opening the same
 * app again gets the same decision and ticket while nothing they rest on has changed and the
 * ticket has more than half its life left; otherwise the app-open rule decides, within the open
 * limit, and a new ticket is issued.
 */
export async function openApp(
  deps: DomainDeps,
  principal: OpeningPrincipal,
  target: AppTarget,
  linkShareId: string | null = null,
): Promise<OpenedApp> {
  const key = openKey(principal, target, linkShareId);
  const reused = await reusableOpen(deps.principals, key, deps.clock.now());
  // A ticket handed out again is a ticket request all the same (spec: 429 once the minutes are used up).
  if (reused) await assertTicketReuseAllowed(deps.db, deps.clock, reused.app.id);
  const decided = reused ?? (await decideOpen(deps, principal, target, linkShareId, key));
  if ('opened' in decided) return decided;
  const { app, version, access, ticket } = decided;
  deps.opens.note(openRecord(deps, app, version, target.channel, principal.account.id, access.viaShare));
  return { opened: true, app, version, access, ticket, entry: await entryOf(deps, version) };
}

/** The app-open rule's answer and, when it admits, a new ticket, kept for reuse. */
async function decideOpen(
  deps: DomainDeps,
  principal: OpeningPrincipal,
  target: AppTarget,
  linkShareId: string | null,
  key: string,
): Promise<ReusableOpen | Extract<OpenedApp, { opened: false }>> {
  const generation = deps.principals.generation();
  const { app, version, access, expiresBy } = await accessToAppUntil(deps, principal, target, linkShareId);
  if (!access.allowed) return { opened: false, app, version, access };
  // Counted on the pool, so refused opens count too.
  await consume(deps.db, OPEN_LIMIT, `${principal.account.id}:${app.id}`, deps.clock);
  const ticket = await issueTicket(deps.db, deps.clock, {
    accountId: principal.account.id,
    appId: app.id,
    channel: target.channel,
    versionId: version.id,
    shareId: access.viaShare,
    grant: access.viaGrant,
    source: ticketSourceOf(principal),
    role: access.role,
  });
  const open = { app, version, access, ticket };
  keepOpen(deps.principals, generation, key, open, expiresBy);
  return open;
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
  deps.opens.note(openRecord(deps, app, version, target.channel, null, null));
  return { app, version, access, entry };
}
