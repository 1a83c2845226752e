import type { Logger } from 'pino';
import { type LogRecord, writeLogRecords } from '../app-log/index.ts';
import type { Db } from '../db/index.ts';
import type { Clock } from '../deps.ts';

/**
 * Writes the app log's usage/open records off the request path, like keys' last_used_at: opens
 * are noted in memory, and the opens of one visitor, app, channel, version and share within one
 * minute become one record (`data.opens` says how many), written once that minute is over. The
 * daily counts the log summary reads count every open. A process that dies loses the opens of its
 * last minute; a stopping one writes them first.
 */
export interface OpenRecorder {
  note(record: LogRecord): void;
  /** Writes every noted open now, the current minute's too (also at stop). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** Records waiting at most; past it, opens of new visitors are not recorded until the next write. */
const MAX_PENDING = 10_000;
const FOREIGN_KEY_VIOLATION = '23503';
/** Records per statement. */
const CHUNK = 100;
const minuteOf = (at: Date) => Math.floor(at.getTime() / 60_000);

export function startOpenRecorder(db: Db, logger: Logger, clock: Clock, intervalMs = 1_000): OpenRecorder {
  const pending = new Map<string, LogRecord & { count: number; minute: number }>();
  let dropped = 0;
  let writing: Promise<void> = Promise.resolve();
  const keep = (key: string, record: LogRecord, count: number, minute: number) => {
    const seen = pending.get(key);
    if (seen) {
      seen.count += count;
      seen.data = { ...seen.data, opens: seen.count };
    } else if (pending.size < MAX_PENDING) pending.set(key, { ...record, count, minute, data: { ...record.data, opens: count } });
    else dropped += count;
  };
  /** Writes the records of minutes already over, or all of them. */
  const write = (all: boolean) => {
    writing = writing.then(async () => {
      if (dropped > 0) logger.warn({ opens: dropped }, 'app opens not recorded: too many waiting to be written');
      dropped = 0;
      const current = minuteOf(clock.now());
      const batch = [...pending].filter(([, record]) => all || record.minute < current);
      if (batch.length === 0) return;
      for (const [key] of batch) pending.delete(key);
      // One transaction per app and chunk: an app deleted meanwhile loses its own records only, and
      // no statement is big enough to hold the event loop (a minute of a busy app's opens is many).
      const byApp = Map.groupBy(batch, ([, record]) => record.appId);
      for (const entries of byApp.values()) {
        for (let i = 0; i < entries.length; i += CHUNK) {
          const chunk = entries.slice(i, i + CHUNK);
          await db
            .transaction()
            .execute((trx) =>
              writeLogRecords(
                trx,
                chunk.map(([, record]) => record),
              ),
            )
            .catch((err: { code?: string }) => {
              if (err.code === FOREIGN_KEY_VIOLATION) return;
              logger.warn({ err, records: chunk.length }, 'cannot record app opens; trying again at the next write');
              for (const [key, record] of chunk) keep(key, record, record.count, record.minute);
            });
        }
      }
    });
    return writing;
  };
  const timer = setInterval(() => write(false), intervalMs);
  timer.unref();
  return {
    note(record) {
      const minute = minuteOf(record.at);
      const key = [record.appId, record.accountId, record.channel, record.versionId, JSON.stringify(record.data), minute].join('\u0000');
      keep(key, record, 1, minute);
    },
    flush: () => write(true),
    stop() {
      clearInterval(timer);
      return write(true);
    },
  };
}
