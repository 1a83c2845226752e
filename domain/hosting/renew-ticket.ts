import { currentVersionId, loadVersion } from '../apps/index.ts';
import { visitorOf } from '../companies/index.ts';
import type { Channel, DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { appRoleOf, withinAppMarkings } from '../policy/index.ts';
import { clearedForApp, findAppGrants } from '../resources/index.ts';
import type { TicketPrincipal } from './authenticate-ticket.ts';
import { issueTicket } from './issue-ticket.ts';

/**
 * Renews an app ticket with itself (up to 24 hours after it expired; authenticateTicket checks
 * that), re-checking the account and its access today. The new ticket keeps the version of the
 * old one (it belongs to the page that runs that version) and its source (key or session); the
 * old one is retired: it admits TICKET_RENEWAL_OVERLAP_MS more, for requests in flight.
 */
export async function renewTicket(db: DbOrTrx, clock: Clock, principal: TicketPrincipal, channel: Channel | undefined) {
  const { ticket } = principal;
  if (channel !== undefined && channel !== ticket.channel) {
    throw new DomainError('forbidden', `This ticket is for the ${ticket.channel} channel.`, { details: { channel: ticket.channel } });
  }
  const app = await db.selectFrom('apps').select(['company_id']).where('id', '=', ticket.appId).executeTakeFirstOrThrow();
  const shownId = (await currentVersionId(db, ticket.appId, ticket.channel)) ?? ticket.versionId;
  const shown = await loadVersion(db, shownId);
  const now = clock.now();
  const visitor = await visitorOf(db, principal, now);
  const appRef = { id: ticket.appId, namespace: ticket.namespace, slug: ticket.slug, companyId: app.company_id };
  const shares = await findAppGrants(db, {
    app: appRef,
    visitor,
    linkShareId: ticket.shareId,
    now,
  });
  const access = withinAppMarkings(
    appRoleOf(
      visitor,
      {
        namespace: ticket.namespace,
        companyId: app.company_id,
        channel: ticket.channel,
        access: shown.manifest.auth.access,
        publicLink: shown.manifest.auth.publicLink,
      },
      shares,
    ),
    await clearedForApp({ db }, { accountId: principal.account.id, now }, appRef),
  );
  if (!access.allowed) throw new DomainError('forbidden', `${access.message} ${access.remedy}`, { details: { reason: access.reason } });
  const version = await loadVersion(db, ticket.versionId);
  // The old ticket is retired (it admits the overlap more, never renews again); the first of two
  // concurrent renewals wins. The new one derives from what the old one did.
  const retired = await db
    .updateTable('app_tickets')
    .set({ renewed_at: clock.now() })
    .where('id', '=', ticket.id)
    .where('renewed_at', 'is', null)
    .returning(['key_id', 'session_hash'])
    .executeTakeFirst();
  if (!retired) throw new DomainError('unauthorized', 'The app ticket was renewed already; use the new one, or open the app again.');
  const issued = await issueTicket(db, clock, {
    accountId: principal.account.id,
    appId: ticket.appId,
    channel: ticket.channel,
    versionId: ticket.versionId,
    renewedFrom: ticket.id,
    shareId: access.viaShare,
    grant: access.viaGrant,
    source: { keyId: retired.key_id, sessionHash: retired.session_hash },
    role: access.role,
  });
  return { ...issued, channel: ticket.channel, version: version.version };
}
