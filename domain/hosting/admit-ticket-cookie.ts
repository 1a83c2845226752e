import type { Channel } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { sha256Hex } from '../security/index.ts';
import { findLiveTicket } from './authenticate-ticket.ts';
import { isTicket } from './ticket-format.ts';

/**
 * Whether the ticket the entry page set as a cookie admits the app's versioned files. The page's
 * files are many small requests, so a ticket found valid is kept in the principal cache, which
 * every process empties when any ticket, share, web session, key or account changes (the same
 * NOTIFY as for keys): a revoke stops the files at once, and an entry lives only until the ticket
 * stops admitting by itself (expiry, renewal overlap, share expiry).
 */
export async function admitTicketCookie(
  deps: Pick<DomainDeps, 'db' | 'clock' | 'principals'>,
  ticket: string,
  appId: string,
  channel: Channel,
): Promise<boolean> {
  if (!isTicket(ticket)) return false;
  const cacheKey = `ticket:${sha256Hex(ticket)}`;
  const now = deps.clock.now().getTime();
  const hit = await deps.principals.get(cacheKey);
  let admitted = hit && 'ticketCookie' in hit && hit.ticketCookie.until > now ? hit.ticketCookie : undefined;
  if (!admitted) {
    const generation = deps.principals.generation();
    const found = await findLiveTicket(deps.db, deps.clock, ticket, { forRenewal: false }).catch(() => undefined);
    if (!found) return false;
    admitted = { appId: found.principal.ticket.appId, channel: found.principal.ticket.channel, until: found.validUntil };
    deps.principals.set(cacheKey, generation, { ticketCookie: admitted });
  }
  return admitted.appId === appId && admitted.channel === channel;
}
