import { sql } from 'kysely';
import type { Channel, DbOrTrx, FeedbackStatus, LogKind } from '../db/index.ts';
import { newId } from '../security/index.ts';

export interface LogRecord {
  appId: string;
  /** The injected clock's time, so records agree with every other time the service keeps. */
  at: Date;
  kind: LogKind;
  source: 'app' | 'service';
  /** What follows the kind: `open`, a track name, `create`, an action name, an error class, a feedback topic. */
  name: string;
  /** The visitor (events, opens) or the actor (actions, shares). */
  accountId: string | null;
  versionId?: string | null;
  channel?: Channel | null;
  data: Record<string, unknown>;
  /** How many occurrences the record stands for in the daily counts (opens coalesced per minute); 1 when absent. */
  count?: number;
}

/**
 * The one writer of the app log: app events and the service's own records (usage/open, action/*,
 * share/*), one or many rows in one insert, plus the daily roll-ups the summary reads. Called
 * inside the caller's transaction, so a record exists exactly when its action committed; it
 * touches no row the action holds and checks only the app's foreign key, which the action itself
 * needs, so it cannot fail the action on its own.
 */
export async function writeLogRecords(db: DbOrTrx, records: readonly LogRecord[]): Promise<string[]> {
  if (records.length === 0) return [];
  const rows = records.map((record) => ({
    id: newId('log'),
    app_id: record.appId,
    at: record.at,
    kind: record.kind,
    source: record.source,
    name: record.name,
    account_id: record.accountId,
    version_id: record.versionId ?? null,
    channel: record.channel ?? null,
    data: JSON.stringify(record.data),
    // Feedback starts open (spec "Feedback status").
    status: record.kind === 'feedback' ? ('open' as FeedbackStatus) : null,
  }));
  await db.insertInto('app_log_events').values(rows).execute();
  await rollUp(db, records);
  return rows.map((r) => r.id);
}

/** Kinds whose account is a visitor of the app (the others name an actor). */
const VISITOR_KINDS: ReadonlySet<LogKind> = new Set(['usage', 'feedback', 'error']);
const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/**
 * Adds the records to the per-day counts and moves each visitor's last day. Rows are merged and
 * sorted first: one statement may not touch a row twice, and a fixed order means two writers
 * never deadlock.
 */
async function rollUp(db: DbOrTrx, records: readonly LogRecord[]): Promise<void> {
  const counts = new Map<string, { app_id: string; day: string; kind: LogKind; name: string; count: number }>();
  const visitors = new Map<string, { app_id: string; account_id: string; last_day: string }>();
  for (const r of records) {
    const day = dayOf(r.at);
    const key = [r.appId, day, r.kind, r.name].join('\u0000');
    const row = counts.get(key);
    if (row) row.count += r.count ?? 1;
    else counts.set(key, { app_id: r.appId, day, kind: r.kind, name: r.name, count: r.count ?? 1 });
    if (r.accountId !== null && VISITOR_KINDS.has(r.kind)) {
      const vkey = [r.appId, r.accountId].join('\u0000');
      const seen = visitors.get(vkey);
      if (!seen || seen.last_day < day) visitors.set(vkey, { app_id: r.appId, account_id: r.accountId, last_day: day });
    }
  }
  const sorted = <T>(m: Map<string, T>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  await db
    .insertInto('app_log_daily')
    .values(sorted(counts))
    .onConflict((oc) => oc.columns(['app_id', 'day', 'kind', 'name']).doUpdateSet({ count: sql`app_log_daily.count + excluded.count` }))
    .execute();
  if (visitors.size > 0) {
    await db
      .insertInto('app_log_visitors')
      .values(sorted(visitors))
      .onConflict((oc) =>
        oc
          .columns(['app_id', 'account_id'])
          .doUpdateSet({ last_day: sql`greatest(app_log_visitors.last_day, excluded.last_day)` })
          // Most events come from a visitor already counted today: no row version for them.
          .where(sql<boolean>`app_log_visitors.last_day < excluded.last_day`),
      )
      .execute();
  }
}
