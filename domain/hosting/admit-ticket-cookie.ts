import { sql } from 'kysely';
import type { Channel, DbOrTrx } from '../db/index.ts';
import type { DomainDeps } from '../deps.ts';
import { cacheFamily, readThrough } from '../keys/index.ts';
import { equalHashes, sha256, sha256Hex } from '../security/index.ts';
import { findLiveTicketByHash } from './authenticate-ticket.ts';
import { filesSecretOf, isTicket } from './ticket-format.ts';

/** Ticket cookies found valid for an app's version files, by ticket hash; `until` (ms): they stop admitting by themselves then. */
const TICKET_COOKIES = cacheFamily<{ appId: string; channel: Channel; until: number }>('ticket');

/**
 * Whether the ticket the entry page set as a cookie admits the app's versioned files, asked for
 * at the address with the secret of that ticket (`filesSecretOf`): a cookie never admits a file
 * at any other address, so another site that includes the app's files (the cookie is
 * SameSite=None) gets nothing. The cookie keeps the ticket the page opened with, while the page
 * renews its ticket through the API: what admits is the newest ticket renewed from it, so the
 * files load as long as the page's ticket lives. The page's files are many small requests, so an
 * answer found valid is kept in the principal cache, which every process empties when any ticket,
 * share, web session, key or account changes (the same NOTIFY as for keys): a revoke stops the
 * files at once, and an entry lives only until the ticket stops admitting by itself (expiry,
 * share expiry).
 */
export async function admitTicketCookie(
  deps: Pick<DomainDeps, 'db' | 'clock' | 'principals'>,
  ticket: string,
  pathSecret: string,
  appId: string,
  channel: Channel,
): Promise<boolean> {
  if (!isTicket(ticket) || !equalHashes(Buffer.from(filesSecretOf(ticket)), Buffer.from(pathSecret))) return false;
  const admitted = await readThrough(
    deps,
    TICKET_COOKIES,
    sha256Hex(ticket),
    async () => {
      const current = await newestRenewalOf(deps.db, sha256(ticket));
      const found = current && (await findLiveTicketByHash(deps.db, deps.clock, current, { forRenewal: false }).catch(() => undefined));
      return found ? { appId: found.principal.ticket.appId, channel: found.principal.ticket.channel, until: found.validUntil } : undefined;
    },
    (a) => a.until > deps.clock.now().getTime(),
  );
  return admitted?.appId === appId && admitted.channel === channel;
}

/** The hash of the last ticket of the renewals that start at this one (itself when never renewed). */
async function newestRenewalOf(db: DbOrTrx, hash: Buffer): Promise<Buffer | undefined> {
  // A renewal retires its ticket once (renew-ticket.ts), so the renewals form a chain.
  const { rows } = await sql<{ hash: Buffer }>`
    WITH RECURSIVE chain AS (
      SELECT id, hash, 0 AS depth FROM app_tickets WHERE hash = ${hash}
      UNION ALL
      SELECT t.id, t.hash, c.depth + 1 FROM app_tickets t JOIN chain c ON t.renewed_from = c.id
    )
    SELECT hash FROM chain ORDER BY depth DESC LIMIT 1`.execute(db);
  return rows[0]?.hash;
}
