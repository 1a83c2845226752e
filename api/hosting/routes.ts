import { z } from 'zod';
import { renewTicket, type TicketPrincipal } from '../../domain/hosting/index.ts';
import { AppParams, Channel } from '../../schemas/apps.ts';
import { defineRoute, withoutIssuedSecret } from '../http/route.ts';

const RenewedTicket = z
  .object({
    ticket: z.string().meta({ description: 'The new app ticket `svc-at-…` (plaintext only in this answer).' }),
    expiresAt: z.iso.datetime(),
    channel: Channel,
    version: z.string(),
  })
  .meta({ id: 'AppTicket' });

export const renewTicketRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/apps/{namespace}/{slug}/tickets',
  operationId: 'renewAppTicket',
  summary: 'Renew the app ticket with the current one (called by the browser SDK)',
  description:
    'The credential is the current ticket (`Authorization: Bearer svc-at-…`), accepted up to 24 hours after it expired; it admits ' +
    'only its own app. The account and its access to the app are checked again. The new ticket is valid 8 hours, for the same ' +
    'channel and version. `channel`, when given, must be the ticket’s.',
  tags: ['apps'],
  auth: 'renewal',
  write: true,
  params: AppParams,
  query: z.strictObject({ channel: Channel.optional() }),
  response: { status: 201, description: 'A new ticket.', schema: RenewedTicket },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'quota_exhausted', 'rate_limited'],
  async handler({ db, deps, principal, query }) {
    // The route accepts tickets only, so the principal is one.
    const renewed = await renewTicket(db, deps.clock, principal as TicketPrincipal, query.channel);
    return withoutIssuedSecret({ ...renewed, expiresAt: renewed.expiresAt.toISOString() }, 'ticket');
  },
});

export const hostingRoutes = [renewTicketRoute];
