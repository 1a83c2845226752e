import { sql } from 'kysely';
import type { FollowEventsQuery, LogEventView } from '../../schemas/app-log.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { decodeCursor, encodeCursor, logFilters, type Row, selectLog, toView } from './list-events.ts';

/**
 * A record's time is taken before its transaction commits, so it may become visible after newer
 * ones were sent: each read looks this far back from the newest record sent, skipping those sent.
 */
const OVERLAP_MS = 10_000;
/** New records sent per read at most: a busy log is caught up over several reads. */
const BATCH = 200;

export interface LogFollow {
  /** The records that became visible since the last read, each with its resume point (`cursor`). */
  read(): Promise<{ event: LogEventView; cursor: string }[]>;
  /** Where a client resumes: the newest record sent, else the start. */
  resumeAt(): string | null;
}

/**
 * Follows the app log (spec Events: app log records) once the caller may read it: records after
 * `after` (a cursor a stream sent), else those from `from`, else only those written from now on,
 * oldest first, with the filters of a log query. Records that become visible late (see
 * OVERLAP_MS) come after newer ones; none is sent twice on one connection.
 */
export async function followEvents(db: DbOrTrx, principal: Principal, namespace: string, query: FollowEventsQuery): Promise<LogFollow> {
  const { after, ...filters } = query;
  const where = await logFilters(db, principal, namespace, after ? { ...filters, from: undefined } : filters);
  // Records at or before the start are the client's already (or older than it asked for).
  let floor: { at: string; id: string } | null = after ? decodeCursor(after) : null;
  if (!after && !query.from) {
    const [newest] = await selectLog(db, where, 1);
    floor = newest ? { at: newest.at_key, id: newest.id } : null;
  }
  const start = floor ? encodeCursor({ at_key: floor.at, id: floor.id }) : null;
  let newest: Row | null = null;
  const sent = new Map<string, number>();
  return {
    async read() {
      const conditions = [...where];
      if (floor) conditions.push(sql`(e.at, e.id) > (${floor.at}::timestamptz, ${floor.id})`);
      if (newest) conditions.push(sql`e.at >= ${new Date(Date.parse(newest.at_key) - OVERLAP_MS)}`);
      const rows = (await selectLog(db, conditions, BATCH + sent.size, true)).filter((r) => !sent.has(r.id)).slice(0, BATCH);
      for (const row of rows) {
        sent.set(row.id, Date.parse(row.at_key));
        if (!newest || row.at_key > newest.at_key || (row.at_key === newest.at_key && row.id > newest.id)) newest = row;
      }
      if (newest) {
        const horizon = Date.parse(newest.at_key) - OVERLAP_MS;
        for (const [id, at] of sent) if (at < horizon) sent.delete(id);
      }
      return rows.map((row) => ({ event: toView(row), cursor: encodeCursor(row) }));
    },
    resumeAt: () => (newest ? encodeCursor(newest) : start),
  };
}
