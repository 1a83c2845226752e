import type { AppRole, Channel, DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { assertTicketsAllowed } from '../usage/index.ts';
import { newTicket, TICKET_TTL_MS } from './ticket-format.ts';

export interface IssuedTicket {
  ticket: string;
  expiresAt: Date;
}

export interface TicketSource {
  keyId: string | null;
  sessionHash: Buffer | null;
}

/** Who opens an app page: a key or a web session (a ticket is only renewed, from its own row). */
export type OpeningPrincipal = Exclude<Principal, { kind: 'ticket' }>;

/** The credential a ticket derives from: the key or web session the app was opened with. */
export const ticketSourceOf = (principal: OpeningPrincipal): TicketSource =>
  principal.kind === 'key' ? { keyId: principal.key.id, sessionHash: null } : { keyId: null, sessionHash: principal.sessionHash };

/** A ticket for one account, app, channel, version and app role; only its hash is stored. */
export async function issueTicket(
  db: DbOrTrx,
  clock: Clock,
  input: {
    accountId: string;
    appId: string;
    channel: Channel;
    versionId: string;
    renewedFrom?: string;
    /** The share that admitted the visitor: the ticket ends with it. */
    shareId: string | null;
    /** The resource grant that admitted the visitor: removing or lowering it revokes the ticket. */
    grant: { rid: string; principal: string } | null;
    /** What the visitor opened the app with (a key or a web session): the ticket ends with it. */
    source: TicketSource;
    /** The visitor's role in the app, by the app-open rule: what the ticket may do follows from it. */
    role: AppRole;
  },
): Promise<IssuedTicket> {
  await assertTicketsAllowed(db, clock, input.appId);
  const { plaintext, hash } = newTicket();
  const expiresAt = new Date(clock.now().getTime() + TICKET_TTL_MS);
  await db
    .insertInto('app_tickets')
    .values({
      id: newId('tkt'),
      hash,
      account_id: input.accountId,
      app_id: input.appId,
      channel: input.channel,
      version_id: input.versionId,
      expires_at: expiresAt,
      renewed_from: input.renewedFrom ?? null,
      share_id: input.shareId,
      grant_rid: input.grant?.rid ?? null,
      grant_principal: input.grant?.principal ?? null,
      key_id: input.source.keyId,
      session_hash: input.source.sessionHash,
      role: input.role,
    })
    .execute();
  return { ticket: plaintext, expiresAt };
}
