import { z } from 'zod';
import { DomainError } from '../../../domain/errors.ts';
import { subscribeObjectSets } from '../../../domain/ontology/index.ts';
import { ROUTE_ACCESS } from '../../../domain/policy/index.ts';
import { OntologyParam } from '../../../schemas/ontology.ts';
import { StreamSubscriptionsRequest } from '../../../schemas/ontology-subscriptions.ts';
import { defineRoute } from '../../http/route.ts';
import { RECHECK_MS, streamSubscriptions } from './stream.ts';

// Object-set subscriptions (Foundry's streamSubscriptions over server-sent events, resumable by
// sequence number). Readers of the ontology routes may subscribe to what they may read.

const LastEventId = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number);

export const streamSubscriptionsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/ontologySubscriptions/ontologies/{ns}/streamSubscriptions',
  operationId: 'streamOntologySubscriptions',
  summary: 'Subscribes to object sets: server-sent events subscribeResponses, objectSetChanged, refreshObjectSet, subscriptionClosed',
  description:
    'Every event has as its id the change sequence number it brings the client to; reconnect with the same body and ' +
    '`afterSeq` (or `Last-Event-ID`) to get every change after it, or `refreshObjectSet` when those changes are no longer ' +
    `kept (reload the set, then keep listening). An object is sent only to callers who may read its type and whose set ` +
    'holds it; REMOVED names the object only, and only to subscribers whose set held it before. The credential and ' +
    `access are checked again every ${RECHECK_MS / 1000} s: a failure ends each subscription with subscriptionClosed ` +
    '(`cause`: the error code and status) and the stream; clients must not reconnect after 401, 403 or 404. Id-only ' +
    'events keep the connection open and move the resume point.',
  tags: ['ontologies'],
  auth: 'credential',
  envelope: false,
  params: z.strictObject({ ns: OntologyParam }),
  body: StreamSubscriptionsRequest,
  response: { status: 200, description: 'text/event-stream', schema: z.string() },
  errors: [
    'unauthorized',
    'invalid_session',
    'invalid_path',
    'invalid_payload',
    'ontology_not_found',
    'object_type_not_found',
    'query_invalid',
  ],
  async handler({ deps, principal, params, body, ctx }) {
    const hub = deps.ontologyChanges;
    if (!hub) throw new DomainError('service_unavailable', 'This process serves no subscriptions.');
    const opened = await subscribeObjectSets(deps, principal, { ontology: params.ns, request: body });
    const lastEventId = ctx.get('last-event-id');
    const afterSeq = body.afterSeq ?? (lastEventId ? LastEventId.safeParse(lastEventId).data : undefined);
    return {
      data: streamSubscriptions({
        ctx,
        deps,
        hub,
        access: ROUTE_ACCESS.streamOntologySubscriptions!,
        ontology: params.ns,
        request: body,
        opened,
        afterSeq,
      }) as unknown as string,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
    };
  },
});

export const ontologySubscriptionRoutes = [streamSubscriptionsRoute];
