import type { DbOrTrx } from '../db/index.ts';
import type { Clock, DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { cacheFamily, readThrough } from '../keys/index.ts';
import { liveGroupIds } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { equalHashes, sha256, sha256Hex } from '../security/index.ts';
import { isTicket, TICKET_RENEWAL_GRACE_MS, TICKET_RENEWAL_OVERLAP_MS } from './ticket-format.ts';

export type TicketPrincipal = Extract<Principal, { kind: 'ticket' }>;

const unauthorized = (message: string) => new DomainError('unauthorized', message);

/** Valid tickets for API calls by ticket hash; `validUntil` (ms): it stops admitting by itself then. */
const TICKETS = cacheFamily<{ principal: TicketPrincipal; validUntil: number }>('ticket-auth');

/**
 * The account behind an app ticket. An expired ticket is accepted only for renewal, and only
 * within 24 hours of its expiry; a revoked one never, nor one of an inactive account. A ticket
 * ends with what it derives from, checked here on every use: the share it was opened through
 * (revoked or expired), the key it was opened with (revoked), the web session it was opened with
 * (ended: signed out, password changed, account disabled), the group membership it was opened
 * through (removed or expired). A renewed ticket admits one overlap
 * more (requests already in flight), and never renews again.
 */
export async function authenticateTicket(
  deps: Pick<DomainDeps, 'db' | 'clock' | 'principals'>,
  plaintext: string,
  opts: { forRenewal: boolean },
): Promise<TicketPrincipal> {
  // A renewal reads the row: it is the one use that writes to it.
  if (opts.forRenewal || !isTicket(plaintext)) return (await findLiveTicket(deps.db, deps.clock, plaintext, opts)).principal;
  // Valid tickets are kept in the principal cache, which every change to what they derive from empties.
  // Hex text first: the cache's key, and several times cheaper to make than a Buffer.
  const hash = sha256Hex(plaintext);
  const found = await readThrough(
    deps,
    TICKETS,
    hash,
    () => findLiveTicketByHash(deps.db, deps.clock, Buffer.from(hash, 'hex'), opts),
    (t) => t.validUntil > deps.clock.now().getTime(),
  );
  // findLiveTicketByHash answers or throws.
  return found!.principal;
}

/** authenticateTicket, plus when the ticket stops admitting by itself (expiry, renewal overlap, share expiry), in ms. */
export async function findLiveTicket(
  db: DbOrTrx,
  clock: Clock,
  plaintext: string,
  opts: { forRenewal: boolean },
): Promise<{ principal: TicketPrincipal; validUntil: number }> {
  if (!isTicket(plaintext)) throw unauthorized('The app ticket is malformed.');
  return findLiveTicketByHash(db, clock, sha256(plaintext), opts);
}

/** findLiveTicket for the ticket with this hash. */
export async function findLiveTicketByHash(
  db: DbOrTrx,
  clock: Clock,
  hash: Buffer,
  opts: { forRenewal: boolean },
): Promise<{ principal: TicketPrincipal; validUntil: number }> {
  const row = await db
    .selectFrom('app_tickets as t')
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .innerJoin('apps as p', 'p.id', 't.app_id')
    .leftJoin('app_shares as s', 's.id', 't.share_id')
    .leftJoin('developer_keys as k', 'k.id', 't.key_id')
    .leftJoin('web_sessions as w', 'w.hash', 't.session_hash')
    // The membership behind a ticket opened through a group's share or a group's grant.
    .leftJoin('group_members as gm', (j) =>
      j.onRef('gm.account_id', '=', 't.account_id').on((eb) => eb('gm.group_id', '=', eb.fn.coalesce('s.group_id', 't.grant_principal'))),
    )
    .select([
      't.id',
      't.hash',
      't.channel',
      't.version_id',
      't.expires_at',
      't.revoked_at',
      't.renewed_at',
      'p.id as app_id',
      'p.namespace',
      'p.slug',
      'a.id as account_id',
      'a.username',
      'a.email',
      'a.status',
      'a.platform_staff',
      't.share_id',
      't.role',
      'p.company_id',
      's.revoked_at as share_revoked_at',
      's.expires_at as share_expires_at',
      't.key_id',
      'k.revoked_at as key_revoked_at',
      't.session_hash',
      'w.hash as session_found',
      's.group_id as share_group_id',
      't.grant_principal',
      'gm.group_id as membership_group_id',
      'gm.expires_at as membership_expires_at',
    ])
    .where('t.hash', '=', hash)
    .executeTakeFirst();
  if (!row || !equalHashes(row.hash, hash)) throw unauthorized('The app ticket is unknown.');
  if (row.revoked_at) throw unauthorized('The app ticket was revoked; open the app again.');
  if (row.status !== 'active') throw unauthorized('The account of this app ticket is not active.');
  const now = clock.now().getTime();
  // A ticket opened through a share ends with it, at once.
  if (row.share_revoked_at || (row.share_expires_at && row.share_expires_at.getTime() <= now)) {
    throw unauthorized('The share this app was opened through has ended.');
  }
  // Through a group: it ends with the membership (removed, expired, or the group deleted).
  const viaGroup = row.share_group_id ?? (row.grant_principal?.startsWith('grp_') ? row.grant_principal : null);
  const membership = row.membership_group_id
    ? [{ groupId: row.membership_group_id, companyId: row.company_id ?? '', expiresAt: row.membership_expires_at }]
    : [];
  if (viaGroup && liveGroupIds(membership, new Date(now)).length === 0) {
    throw unauthorized('The group membership this app was opened through has ended.');
  }
  if (row.key_id && row.key_revoked_at) throw unauthorized('The key this app was opened with was revoked; open the app again.');
  if (row.session_hash && !row.session_found) throw unauthorized('The web session this app was opened with has ended; sign in again.');
  const expires = row.expires_at.getTime();
  if (row.renewed_at) {
    if (opts.forRenewal) throw unauthorized('The app ticket was renewed already; use the new one, or open the app again.');
    if (now >= row.renewed_at.getTime() + TICKET_RENEWAL_OVERLAP_MS) throw unauthorized('The app ticket was renewed; use the new one.');
  }
  if (now >= expires && !opts.forRenewal) throw unauthorized('The app ticket has expired; renew it or open the app again.');
  if (now >= expires + TICKET_RENEWAL_GRACE_MS) throw unauthorized('The app ticket expired more than 24 hours ago; open the app again.');
  const validUntil = Math.min(
    expires,
    row.renewed_at ? row.renewed_at.getTime() + TICKET_RENEWAL_OVERLAP_MS : Number.POSITIVE_INFINITY,
    row.share_expires_at?.getTime() ?? Number.POSITIVE_INFINITY,
    (viaGroup && row.membership_expires_at?.getTime()) || Number.POSITIVE_INFINITY,
  );
  return {
    principal: {
      kind: 'ticket',
      account: { id: row.account_id, username: row.username, email: row.email, platformStaff: row.platform_staff },
      ticket: {
        id: row.id,
        appId: row.app_id,
        namespace: row.namespace,
        slug: row.slug,
        channel: row.channel,
        versionId: row.version_id,
        expiresAt: row.expires_at,
        companyId: row.company_id,
        shareId: row.share_id,
        role: row.role,
      },
    },
    validUntil,
  };
}
