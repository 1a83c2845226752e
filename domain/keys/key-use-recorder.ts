import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../db/index.ts';

/**
 * Writes developer_keys.last_used_at off the request path: uses are noted in memory and written
 * by one statement per interval for all keys, so authenticating never waits on a write.
 */
export interface KeyUseRecorder {
  note(keyId: string, at: Date): void;
  /** Writes what is noted (also at stop). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export function startKeyUseRecorder(db: Db, logger: Logger, intervalMs = 1_000): KeyUseRecorder {
  let pending = new Map<string, Date>();
  let writing: Promise<void> = Promise.resolve();
  const flush = () => {
    writing = writing.then(async () => {
      if (pending.size === 0) return;
      const uses = [...pending];
      pending = new Map();
      const rows = sql.join(uses.map(([id, at]) => sql`(${id}, ${at.toISOString()}::timestamptz)`));
      // Never moves a time backwards (a slower process may write an older use later).
      await sql`UPDATE developer_keys AS k SET last_used_at = u.at FROM (VALUES ${rows}) AS u(id, at)
        WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`
        .execute(db)
        .catch((err: unknown) => logger.warn({ err, keys: uses.length }, 'cannot record key use'));
    });
    return writing;
  };
  const timer = setInterval(flush, intervalMs);
  timer.unref();
  return {
    note(keyId, at) {
      pending.set(keyId, at);
    },
    flush,
    stop() {
      clearInterval(timer);
      return flush();
    },
  };
}
