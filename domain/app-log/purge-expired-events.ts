import { sql } from 'kysely';
import { LOG_LIMITS } from '../../schemas/app-log.ts';
import type { Db } from '../db/index.ts';

const DAY_MS = 86_400_000;

/** The oldest time still kept for usage and error events at `now`. */
export const retentionCutoff = (now: Date) => new Date(now.getTime() - LOG_LIMITS.retentionDays * DAY_MS);

/**
 * Deletes one batch of usage and error events older than the retention (feedback, actions and
 * shares are kept), and the error counts, visitors last seen and usage and error day counts before it. Small batches, rows locked with SKIP LOCKED and
 * found through the partial index `app_log_events_expiring`: ingestion only inserts, so it never
 * waits on a purge. Returns how many events were deleted (fewer than `batchSize`: nothing left).
 */
export async function purgeExpiredEvents(db: Db, now: Date, batchSize: number): Promise<number> {
  const cutoff = retentionCutoff(now);
  const deleted = await sql`
    DELETE FROM app_log_events WHERE id IN (
      SELECT id FROM app_log_events
      WHERE kind IN ('usage', 'error') AND at < ${cutoff}
      ORDER BY at LIMIT ${batchSize}
      FOR UPDATE SKIP LOCKED)`.execute(db);
  const cutoffDay = cutoff.toISOString().slice(0, 10);
  await db.deleteFrom('app_log_error_counts').where('day', '<', cutoffDay).execute();
  await db.deleteFrom('app_log_visitors').where('last_day', '<', cutoffDay).execute();
  await db.deleteFrom('app_log_daily').where('day', '<', cutoffDay).where('kind', 'in', ['usage', 'error']).execute();
  return Number(deleted.numAffectedRows ?? 0n);
}
