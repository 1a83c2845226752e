import type { Channel, DbOrTrx, FeedbackStatus, LogKind } from '../db/database.ts';
import { newId } from '../security/random.ts';

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
}

/**
 * The one writer of the app log: app events and the service's own records (usage/open, action/*,
 * share/*), one or many rows in one insert. Called inside the caller's transaction, so a record exists exactly when its action
 * committed; the insert touches no row the action holds and checks only the app's foreign key,
 * which the action itself needs, so it cannot fail the action on its own.
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
  return rows.map((r) => r.id);
}
