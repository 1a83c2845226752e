import { BoundedCache } from '../cache/bounded-cache.ts';
import type { Channel } from '../db/database.ts';
import type { DomainDeps } from '../deps.ts';
import { authenticateTicket } from './authenticate-ticket.ts';

/** How long a ticket found valid admits asset requests without being looked up again. */
const RECHECK_MS = 30_000;
const checked = new BoundedCache<string, { appId: string; channel: Channel; until: number }>(50_000);

/**
 * Whether the ticket the entry page set as a cookie admits the app's versioned files. The page's
 * files are many small requests: a ticket found valid is believed for 30 seconds, so a revoked
 * ticket or account stops loading files within that time (the entry page checks every time).
 */
export async function admitTicketCookie(deps: DomainDeps, ticket: string, appId: string, channel: Channel): Promise<boolean> {
  const now = deps.clock.now().getTime();
  let entry = checked.get(ticket);
  if (!entry || entry.until <= now) {
    checked.delete(ticket);
    const principal = await authenticateTicket(deps.db, deps.clock, ticket, { forRenewal: false }).catch(() => undefined);
    if (!principal) return false;
    entry = {
      appId: principal.ticket.appId,
      channel: principal.ticket.channel,
      until: Math.min(now + RECHECK_MS, principal.ticket.expiresAt.getTime()),
    };
    checked.set(ticket, entry);
  }
  return entry.appId === appId && entry.channel === channel;
}
