import type { AppTarget, HostedApp, HostedVersion } from '../apps/index.ts';
import { cacheFamily, type PrincipalCache } from '../keys/index.ts';
import type { AppAccess } from '../policy/index.ts';
import type { IssuedTicket, OpeningPrincipal } from './issue-ticket.ts';
import { TICKET_TTL_MS } from './ticket-format.ts';

/** An app open whose decision and ticket the same credential gets again on its next open. */
export interface ReusableOpen {
  app: HostedApp;
  version: HostedVersion;
  access: Extract<AppAccess, { allowed: true }>;
  ticket: IssuedTicket;
}

interface Entry extends ReusableOpen {
  /** ms: when the ticket is past half its life, or something the decision relied on expires. */
  until: number;
}

/**
 * Opens reused per process, in the principal cache. An open judged by the app-open rule is given
 * again, with the same ticket, to the same credential opening the same app, channel and link while
 * nothing it was judged on changed: every change to credentials, licenses, shares, grants, channel
 * pointers, groups or markings empties the principal cache; what ends by time alone (a
 * membership's or share's expiry) bounds `until`; and a ticket is reused only while it has more
 * than half its life left, like a renewal. Without a live listener nothing is reused.
 */
const OPENS = cacheFamily<Entry>('open');

/** One entry per credential (a key, with the agent acting through it, or a web session), app, channel and public link. */
export function openKey(principal: OpeningPrincipal, target: AppTarget, linkShareId: string | null): string {
  const credential =
    principal.kind === 'key' ? `key:${principal.key.id}:${principal.agent?.id ?? ''}` : `session:${principal.sessionHash.toString('hex')}`;
  return [credential, target.namespace, target.slug, target.channel, linkShareId ?? ''].join('\u0000');
}

/** The open to give again, once every change committed before this call has reached the process. */
export async function reusableOpen(principals: PrincipalCache, key: string, now: Date): Promise<ReusableOpen | undefined> {
  const entry = await principals.get(OPENS, key);
  return entry && entry.until > now.getTime() ? entry : undefined;
}

/**
 * Keeps an open for reuse, unless a change came in since `generation` was read (before the
 * decision's first query).
 */
export function keepOpen(principals: PrincipalCache, generation: number, key: string, open: ReusableOpen, expiresBy: Date | null): void {
  const halfLife = open.ticket.expiresAt.getTime() - TICKET_TTL_MS / 2;
  principals.set(OPENS, key, generation, { ...open, until: Math.min(halfLife, expiresBy?.getTime() ?? Number.POSITIVE_INFINITY) });
}
