import { z } from 'zod';
import { admitEvents, followEvents, listEvents, recordEvents, setFeedbackStatus, summarizeLog } from '../../domain/app-log/index.ts';
import { logObjectsAsRead } from '../../domain/ontology/index.ts';
import { ROUTE_ACCESS } from '../../domain/policy/index.ts';
import {
  FollowEventsQuery,
  ListEventsQuery,
  LOG_LIMITS,
  LogEventId,
  LogEventView,
  LogSummary,
  Namespace,
  RecordEventsInput,
  RecordEventsResult,
  SetFeedbackStatusInput,
  SummaryQuery,
} from '../../schemas/app-log.ts';
import { SSE_HEADERS } from '../http/event-stream.ts';
import { defineRoute } from '../http/route.ts';
import { followLog } from './follow-stream.ts';

// The app log (spec E): apps send usage, feedback and errors; developers read, handle feedback
// and see the summary (also on the web page /web/log).

/** Developers of the namespace: a developer key, or a web session (the log page). */
const READ_ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'invalid_payload', 'app_not_found'] as const;

export const recordEventsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/log/{namespace}/events',
  operationId: 'recordLogEvents',
  summary: 'Record usage, feedback or error events of an app (from its app ticket or a key)',
  description:
    `Up to ${LOG_LIMITS.eventsPerRequest} events per call. Extra data (usage \`data\`, error \`context\`) at most ` +
    `${LOG_LIMITS.extraDataBytes} bytes per event (413 payload_too_large, \`details.limit\`); at most ` +
    `${LOG_LIMITS.eventsPerVisitorPerMinute} events per visitor per minute (429 rate_limited with Retry-After); captured ` +
    `errors: the first ${LOG_LIMITS.errorsPerClass} per class, app, visitor and UTC day are stored, further ones only counted. ` +
    'Emails, phone and card numbers in any text are replaced by [email], [phone], [card]. Feedback starts open.',
  tags: ['log'],
  auth: 'credential',
  write: true,
  params: z.object({ namespace: Namespace }),
  body: RecordEventsInput,
  response: { status: 201, description: 'What was stored and counted.', schema: RecordEventsResult },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'invalid_payload', 'payload_too_large', 'rate_limited', 'app_not_found'],
  prepare: ({ deps, principal, body }) => admitEvents(deps.db, deps.clock, principal, body.events),
  async handler({ db, deps, principal, params, body }) {
    return { data: await recordEvents(db, deps.clock, principal, params.namespace, body) };
  },
});

export const listEventsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/log/{namespace}/events',
  operationId: 'listLogEvents',
  summary: 'Query the app log of one app or the whole namespace, newest first',
  description:
    'Kinds: usage (usage/open and track), feedback, error, action, share, release (deploy, enter_test, publish, rollback). ' +
    'Filters: slug, kind, name, visitor (account id), username, version, from and to (ISO times, to exclusive), status. ' +
    'Pass `nextCursor` back as `cursor` for the next page.',
  tags: ['log'],
  auth: 'credential',
  params: z.object({ namespace: Namespace }),
  query: ListEventsQuery,
  response: {
    status: 200,
    description: 'A page of records.',
    schema: z.object({ events: z.array(LogEventView), nextCursor: z.string().nullable() }),
  },
  errors: [...READ_ERRORS],
  // Records of data changes carry objects: shown as the reader's read of the ontology would show them.
  async handler({ db, deps, principal, params, query }) {
    const page = await listEvents(db, principal, params.namespace, query);
    return { data: { ...page, events: await logObjectsAsRead(deps, principal, params.namespace, page.events) } };
  },
});

/** A resume point as `Last-Event-ID` carries it; anything else there is ignored (the stream starts afresh). */
const LastEventId = FollowEventsQuery.shape.after.unwrap();

export const followEventsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/log/{namespace}/events/stream',
  operationId: 'followLogEvents',
  summary: 'Follow the app log as server-sent events (`log`, `reconnect`, `end`), resumable by event id',
  description:
    'Each record is a `log` event (data: the record as the query returns it), oldest first, with the filters slug, kind, name, ' +
    'username and from; without `from` only records written from now on. Its `id` is the resume point: reconnect with ' +
    '`Last-Event-ID` (or `?after=`) to get the records after it. A record that becomes visible late (its transaction ' +
    'committed after newer ones) comes after them. About every 280 seconds `reconnect` (`{after}`) asks the client to ' +
    'reconnect; the credential and the right to read the log are checked again every few seconds, and a failure ends the ' +
    'stream with `end` (`{code, status}`: 401, 403 or 404), after which clients must not reconnect.',
  tags: ['log'],
  auth: 'credential',
  envelope: false,
  params: z.object({ namespace: Namespace }),
  query: FollowEventsQuery,
  response: { status: 200, description: 'text/event-stream', schema: z.string() },
  errors: [...READ_ERRORS],
  async handler({ deps, principal, params, query, ctx }) {
    const resume = LastEventId.safeParse(ctx.get('last-event-id'));
    const after = query.after ?? (resume.success ? resume.data : undefined);
    // The stream outlives the request's transaction: it reads through the pool.
    const followed = await followEvents(deps.db, principal, params.namespace, { ...query, after });
    // Each batch's objects as the reader may read them at that moment (listLogEvents' rule).
    const follow = {
      ...followed,
      async read() {
        const batch = await followed.read();
        const events = await logObjectsAsRead(
          deps,
          principal,
          params.namespace,
          batch.map((b) => b.event),
        );
        return batch.map((b, i) => ({ ...b, event: events[i]! }));
      },
    };
    return {
      data: followLog(
        ctx,
        deps,
        ROUTE_ACCESS.followLogEvents!,
        { namespace: params.namespace, slug: query.slug },
        follow,
      ) as unknown as string,
      headers: SSE_HEADERS,
    };
  },
});

export const setFeedbackStatusRoute = defineRoute({
  method: 'patch',
  path: '/api/v1/developer/log/{namespace}/events/{id}',
  operationId: 'setFeedbackStatus',
  summary: 'Set the handling status of a feedback event: open → planned → done or dismissed',
  description:
    'Only the moves of the spec’s table: open → planned, planned → done, planned → dismissed. Any other move, or an event ' +
    'that is not feedback, is 409 conflict with `details.from`, `details.to` and `details.allowed`; `open` is never a target ' +
    '(400 invalid_payload). Who and when are recorded.',
  tags: ['log'],
  auth: 'credential',
  write: true,
  params: z.object({ namespace: Namespace, id: LogEventId }),
  body: SetFeedbackStatusInput,
  response: { status: 200, description: 'The feedback event with its new status.', schema: LogEventView },
  errors: [...READ_ERRORS, 'not_found', 'conflict'],
  handler: async ({ db, deps, principal, params, body }) => ({
    data: await setFeedbackStatus(db, deps.clock, principal, params.namespace, params.id, body.status),
  }),
});

export const logSummaryRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/log/{namespace}/summary',
  operationId: 'getLogSummary',
  summary: 'Summary of one app over the last `days` UTC days (default 30)',
  description:
    'Counts by kind, distinct visitors, top actions and usage names, usage by day, open feedback (all time), recent errors and ' +
    'errors counted over the per-class limit, versions with status, releases and semantic versions.',
  tags: ['log'],
  auth: 'credential',
  snapshot: true,
  params: z.object({ namespace: Namespace }),
  query: SummaryQuery,
  response: { status: 200, description: 'The summary.', schema: LogSummary },
  errors: [...READ_ERRORS],
  handler: async ({ db, deps, principal, params, query }) => ({
    data: await summarizeLog(db, { clock: deps.clock, addresses: deps.addresses() }, principal, params.namespace, query),
  }),
});

export const logRoutes = [recordEventsRoute, listEventsRoute, followEventsRoute, setFeedbackStatusRoute, logSummaryRoute];
