import { writeLogRecords } from '../app-log/index.ts';
import { type AppTarget, accessToApp, anonymousAccessToApp, type HostedApp, type HostedVersion } from '../apps/index.ts';
import type { Channel } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { AppAccess } from '../policy/index.ts';
import { consume, type Limit } from '../rate-limit/index.ts';
import { blobBytes } from './blob-bytes.ts';
import { type IssuedTicket, issueTicket, type OpeningPrincipal, ticketSourceOf } from './issue-ticket.ts';

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
      grant: access.viaGrant,
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
