import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { DomainError } from '../../../domain/errors.ts';
import {
  type ChangeBatch,
  type ChangeHub,
  type ChangeListener,
  changesFor,
  type OpenedSubscriptions,
  subscribeObjectSets,
} from '../../../domain/ontology/index.ts';
import type { RouteAccess } from '../../../domain/policy/index.ts';
import { ERRORS } from '../../../schemas/errors.ts';
import type { StreamSubscriptionsRequest, SubscriptionMessage } from '../../../schemas/ontology-subscriptions.ts';
import { authenticate } from '../../auth/authenticate.ts';
import type { ApiDeps } from '../../deps.ts';

// One subscription stream: server-sent events, each with the change sequence number it brings the
// client to as its id. Changes come from the process's one change hub; the credential and the
// caller's access to every subscribed type are checked again every `recheckMs`, and a failure
// ends every subscription with subscriptionClosed (its error) and the stream.

/** How often the credential and the caller's access are checked again. */
export const RECHECK_MS = 5_000;
/** An id-only event: keeps the connection open through proxies and moves the client's resume point. */
const HEARTBEAT_MS = 15_000;

/** Events waiting for a client that does not read: past this the stream ends, and the client resumes with its last id. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

const frame = (message: SubscriptionMessage, id: number) => `event: ${message.type}\nid: ${id}\ndata: ${JSON.stringify(message)}\n\n`;

export interface StreamInput {
  ctx: Context;
  deps: ApiDeps;
  hub: ChangeHub;
  access: RouteAccess;
  ontology: string;
  request: StreamSubscriptionsRequest;
  opened: OpenedSubscriptions;
  afterSeq: number | undefined;
}

export function streamSubscriptions(input: StreamInput): PassThrough {
  const { ctx, deps, hub } = input;
  const { ontology } = input.opened;
  let subscriptions = input.opened.subscriptions;
  const stream = new PassThrough();
  /** The sequence number the client has everything up to. */
  let position = 0;
  let attached = false;
  let ended = false;

  const listener: ChangeListener = {
    companyId: ontology.companyId,
    start(from, lost) {
      position = from;
      const responses = subscriptions.map((s) => ({ type: 'success' as const, id: s.id }));
      stream.write(frame({ type: 'subscribeResponses', id: input.opened.requestId, responses }, from));
      if (lost) {
        for (const s of subscriptions)
          stream.write(frame({ type: 'refreshObjectSet', id: s.id, objectType: s.membership.type.apiName }, from));
      }
    },
    async deliver(batch: ChangeBatch) {
      if (ended) return;
      try {
        const messages: SubscriptionMessage[] = [];
        for (const s of subscriptions) {
          const outcome = await changesFor(deps.db, ontology, s, batch);
          if (outcome.kind === 'refresh') messages.push({ type: 'refreshObjectSet', id: s.id, objectType: outcome.objectType });
          else if (outcome.updates.length > 0) messages.push({ type: 'objectSetChanged', id: s.id, updates: outcome.updates });
        }
        // Only the batch's last event carries its end: a client cut off inside a batch resumes before it.
        for (const [i, m] of messages.entries()) stream.write(frame(m, i === messages.length - 1 ? batch.throughSeq : position));
        position = batch.throughSeq;
        if (stream.writableLength > MAX_BUFFERED_BYTES) end();
      } catch (err) {
        deps.logger.warn({ err, ontology: ontology.cellId }, 'subscription delivery failed');
        close(new DomainError('internal_error', 'The subscription failed; subscribe again.'));
      }
    },
    stopped() {
      close(new DomainError('service_unavailable', 'The service is restarting; subscribe again with afterSeq.'));
    },
  };

  const timers: NodeJS.Timeout[] = [];
  function end(): void {
    if (ended) return;
    ended = true;
    for (const t of timers) clearInterval(t);
    hub.detach(listener);
    stream.end();
  }
  function close(cause: DomainError): void {
    if (ended) return;
    const status = ERRORS[cause.code].status;
    for (const s of subscriptions) {
      stream.write(
        frame(
          { type: 'subscriptionClosed', id: s.id, cause: { type: 'error', code: cause.code, status, message: cause.message } },
          position,
        ),
      );
    }
    end();
  }

  let checking = false;
  const recheck = async () => {
    if (checking || ended) return;
    checking = true;
    try {
      const principal = await authenticate(ctx, deps, input.access, { renewal: false, write: false });
      const again = await subscribeObjectSets(deps, principal, {
        ontology: input.ontology,
        request: { ...input.request, id: input.opened.requestId },
      });
      // Definitions may have changed: judge with the current ones.
      subscriptions = again.subscriptions;
    } catch (err) {
      if (err instanceof DomainError && ERRORS[err.code].status < 500) close(err);
      else deps.logger.warn({ err }, 'subscription re-check failed; trying again');
    } finally {
      checking = false;
    }
  };

  ctx.req.on('close', end);
  stream.write('retry: 2000\n\n');
  hub.attach(listener, input.afterSeq).then(
    () => {
      attached = true;
      if (ended) hub.detach(listener);
    },
    (err: unknown) => {
      deps.logger.warn({ err }, 'subscription could not join the change feed');
      close(new DomainError('service_unavailable', 'The change feed is unavailable; subscribe again.'));
    },
  );
  timers.push(
    setInterval(() => void recheck(), RECHECK_MS),
    setInterval(() => {
      if (!ended) stream.write(`id: ${attached ? Math.max(position, hub.position()) : position}\n\n`);
    }, HEARTBEAT_MS),
  );
  return stream;
}
