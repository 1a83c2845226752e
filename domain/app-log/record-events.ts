import { LOG_LIMITS, type LogEventInput } from '../../schemas/app-log.ts';
import { problem } from '../../schemas/problems.ts';
import type { Db, DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { consume } from '../rate-limit/index.ts';
import { appForSending } from './log-app.ts';
import { scrubPersonalData, scrubText } from './scrub-personal-data.ts';
import { type LogRecord, writeLogRecords } from './write-log-record.ts';

export const EVENT_LIMIT = { name: 'log-events', max: LOG_LIMITS.eventsPerVisitorPerMinute, windowSeconds: 60 };

/**
 * Before the transaction, on the pool: the 4 KB bound of each event's extra data, then the
 * visitor's budget of 120 events a minute (every sent event counts, refused ones too, so a
 * refused batch cannot be retried for free).
 */
export async function admitEvents(pool: Db, clock: Clock, principal: Principal, events: readonly LogEventInput[]): Promise<void> {
  events.forEach((event, i) => {
    const extra = event.kind === 'usage' ? event.data : event.kind === 'error' ? event.context : undefined;
    if (extra === undefined) return;
    const bytes = Buffer.byteLength(JSON.stringify(extra), 'utf8');
    if (bytes > LOG_LIMITS.extraDataBytes) {
      const field = event.kind === 'usage' ? 'data' : 'context';
      throw new DomainError(
        'payload_too_large',
        `Extra data is at most ${LOG_LIMITS.extraDataBytes} bytes per event; events.${i}.${field} has ${bytes}.`,
        {
          details: {
            limit: LOG_LIMITS.extraDataBytes,
            bytes,
            problems: [problem(`events.${i}.${field}`, 'too_big', `at most ${LOG_LIMITS.extraDataBytes} bytes`)],
          },
        },
      );
    }
  });
  await consume(pool, EVENT_LIMIT, principal.account.id, clock, Math.random, events.length);
}

/** The record of one app event; every text the app sent is scrubbed, names too. */
function toRecord(event: LogEventInput): Omit<LogRecord, 'appId' | 'at' | 'accountId' | 'versionId' | 'channel'> {
  const record = appRecord(event);
  return { ...record, name: scrubText(record.name) };
}

function appRecord(event: LogEventInput): Omit<LogRecord, 'appId' | 'at' | 'accountId' | 'versionId' | 'channel'> {
  switch (event.kind) {
    case 'usage':
      return { kind: 'usage', source: 'app', name: event.name, data: scrubPersonalData(event.data ?? {}) };
    case 'feedback': {
      const { kind: _, topic, ...rest } = event;
      return { kind: 'feedback', source: 'app', name: topic, data: scrubPersonalData(rest) };
    }
    case 'error': {
      const { name = 'Error', ...error } = event.error;
      return { kind: 'error', source: 'app', name, data: scrubPersonalData({ error, context: event.context ?? {} }) };
    }
  }
}

/**
 * Records a batch of app events for the visitor. Captured errors: the first 10 per class, app,
 * visitor and UTC day are stored; later ones only raise that day's count.
 */
export async function recordEvents(
  db: DbOrTrx,
  clock: Clock,
  principal: Principal,
  namespace: string,
  input: { slug?: string | undefined; events: readonly LogEventInput[] },
): Promise<{ stored: number; counted: number; ids: string[] }> {
  const { app, versionId, channel } = await appForSending({ db, clock }, principal, namespace, input.slug);
  const accountId = principal.account.id;
  const at = clock.now();
  const day = at.toISOString().slice(0, 10);
  const records: LogRecord[] = [];
  let counted = 0;
  for (const event of input.events) {
    const record = { ...toRecord(event), appId: app.id, at, accountId, versionId, channel };
    if (record.kind === 'error') {
      const { seen } = await db
        .insertInto('app_log_error_counts')
        .values({ app_id: app.id, account_id: accountId, day, class: record.name, seen: 1 })
        .onConflict((oc) =>
          oc.columns(['app_id', 'day', 'class', 'account_id']).doUpdateSet((eb) => ({ seen: eb('app_log_error_counts.seen', '+', 1) })),
        )
        .returning('seen')
        .executeTakeFirstOrThrow();
      if (seen > LOG_LIMITS.errorsPerClass) {
        counted++;
        continue;
      }
    }
    records.push(record);
  }
  const ids = await writeLogRecords(db, records);
  return { stored: ids.length, counted, ids };
}
