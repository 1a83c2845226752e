import { z } from 'zod';
import { NAMESPACE_PATTERN, SLUG_PATTERN } from './manifest/index.ts';

// App log contracts (spec "App log event", E. App log), shared with the CLI and the browser SDK.

export const LOG_LIMITS = {
  /** Bytes of an event's extra data (usage `data`, error `context`), as UTF-8 JSON. */
  extraDataBytes: 4096,
  eventsPerVisitorPerMinute: 120,
  /** Captured errors stored per class, app, visitor and UTC day; further ones are only counted. */
  errorsPerClass: 10,
  /** Events in one POST. */
  eventsPerRequest: 50,
  /** Days usage and error events are kept; feedback, actions and shares are kept long-term. */
  retentionDays: 180,
} as const;

export const Namespace = z.string().regex(NAMESPACE_PATTERN, 'must be public or cell-<company>');
export const Slug = z.string().regex(SLUG_PATTERN, 'must be a slug');
export const FeedbackStatus = z.enum(['open', 'planned', 'done', 'dismissed']);
export type FeedbackStatus = z.infer<typeof FeedbackStatus>;
/** Kinds a reader can filter by: the stored ones plus `release` (deploy, test, publish, rollback). */
export const LogKind = z.enum(['usage', 'feedback', 'error', 'action', 'share', 'release']);
export type LogKind = z.infer<typeof LogKind>;

const ExtraData = z.record(z.string(), z.unknown());

export const UsageEvent = z.strictObject({
  kind: z.literal('usage'),
  name: z.string().min(1).max(100).meta({ description: 'The name given to `track(name, data)`.' }),
  data: ExtraData.optional(),
});
export const FeedbackEvent = z.strictObject({
  kind: z.literal('feedback'),
  topic: z.string().min(1).max(100),
  rating: z.number().int().min(1).max(5).optional(),
  message: z.string().max(2000).optional(),
  object: z.strictObject({ type: z.string().min(1).max(100), pk: z.union([z.string().max(200), z.number()]) }).optional(),
});
export const ErrorEvent = z.strictObject({
  kind: z.literal('error'),
  error: z.strictObject({
    name: z.string().min(1).max(100).optional().meta({ description: 'The error class; `Error` when absent.' }),
    message: z.string().max(1000),
    stack: z.string().max(4000).optional(),
  }),
  context: ExtraData.optional().meta({ description: 'Where it happened, e.g. `{ "where": "save-button" }`.' }),
});
export const LogEventInput = z.discriminatedUnion('kind', [UsageEvent, FeedbackEvent, ErrorEvent]);
export type LogEventInput = z.infer<typeof LogEventInput>;

export const RecordEventsInput = z.strictObject({
  slug: Slug.optional().meta({ description: 'The app; required with a key, implied by an app ticket.' }),
  events: z.array(LogEventInput).min(1).max(LOG_LIMITS.eventsPerRequest),
});

export const RecordEventsResult = z.object({
  stored: z.number().int().meta({ description: 'Events stored.' }),
  counted: z.number().int().meta({ description: 'Captured errors over the per-class limit: counted, not stored.' }),
  ids: z.array(z.string()),
});

export const LogEventView = z
  .object({
    id: z.string(),
    app: z.string(),
    at: z.string(),
    kind: LogKind,
    name: z.string(),
    source: z.enum(['app', 'service']),
    visitor: z.object({ id: z.string(), username: z.string().nullable() }).nullable(),
    version: z.string().nullable(),
    channel: z.enum(['test', 'production']).nullable(),
    data: z.unknown(),
    status: FeedbackStatus.nullable(),
    statusBy: z.string().nullable(),
    statusAt: z.string().nullable(),
  })
  .meta({ id: 'LogEvent' });
export type LogEventView = z.infer<typeof LogEventView>;

const IsoTime = z.iso.datetime({ offset: true });

export const ListEventsQuery = z.strictObject({
  slug: Slug.optional(),
  kind: LogKind.optional(),
  name: z.string().min(1).max(100).optional(),
  visitor: z.string().min(1).max(100).optional().meta({ description: 'An account id.' }),
  username: z.string().min(1).max(64).optional().meta({ description: 'A visitor’s username, as the records show it (any case).' }),
  version: z.string().min(1).max(100).optional(),
  from: IsoTime.optional(),
  to: IsoTime.optional(),
  status: FeedbackStatus.optional(),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a cursor from a previous page')
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

export const FollowEventsQuery = z.strictObject({
  ...ListEventsQuery.pick({ slug: true, kind: true, name: true, username: true, from: true }).shape,
  after: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be an event id the stream sent')
    .optional()
    .meta({ description: 'Resume after this event id (what `Last-Event-ID` carries); `from` is then ignored.' }),
});
export type FollowEventsQuery = z.infer<typeof FollowEventsQuery>;

export const SetFeedbackStatusInput = z.strictObject({ status: FeedbackStatus.exclude(['open']) });
export const LogEventId = z.string().regex(/^log_[0-9A-Za-z]{10,40}$/, 'must be a log event id (log_…)');

export const SummaryQuery = z.strictObject({ slug: Slug, days: z.coerce.number().int().min(1).max(365).default(30) });

export const LogSummary = z
  .object({
    app: z.string(),
    days: z.number().int(),
    since: z.string(),
    counts: z.record(LogKind, z.number().int()),
    visitors: z.number().int(),
    topActions: z.array(z.object({ name: z.string(), count: z.number().int() })),
    topUsage: z.array(z.object({ name: z.string(), count: z.number().int() })),
    usageByDay: z.array(z.object({ day: z.string(), count: z.number().int() })),
    openFeedback: z.object({ count: z.number().int(), recent: z.array(LogEventView) }),
    errors: z.object({ counted: z.number().int(), recent: z.array(LogEventView) }),
    versions: z.array(z.object({ version: z.string(), build: z.number().int(), status: z.string(), tested: z.boolean() })),
    releases: z.array(
      z.object({ channel: z.string(), action: z.string(), from: z.string().nullable(), to: z.string(), by: z.string(), at: z.string() }),
    ),
    semanticVersions: z.object({
      latest: z.string().nullable(),
      live: z.string().nullable(),
      test: z.string().nullable(),
      all: z.array(z.string()),
    }),
  })
  .meta({ id: 'LogSummary' });
export type LogSummary = z.infer<typeof LogSummary>;
