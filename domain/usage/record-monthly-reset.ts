import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';
import { computeUse } from './check-quota.ts';
import { COMPUTE_METERS, periodOf, previousMonth } from './meters.ts';
import { capsOfApp, readCounters } from './repository.ts';

export interface MonthlyReset {
  month: string;
  ranAt: string;
  /** Apps that had used up last month's compute minutes: their triggers may start again. */
  reenabledAppIds: string[];
  /** false when this month's reset was already recorded (a repeated or caught-up run). */
  recorded: boolean;
}

/**
 * The monthly reset (run by the Temporal Schedule at 00:00 UTC on the 1st, `at` being the
 * schedule's time). Nothing is zeroed: counters are keyed by month, so the new month starts at
 * zero by itself and a run missed while the service was down loses nothing. The reset records
 * the month it opened and the apps whose triggers it re-enables (exhausted last month); the gates
 * read the current month's counters, so they never wait for it. Idempotent per month.
 */
export async function recordMonthlyReset(db: DbOrTrx, at: Date): Promise<MonthlyReset> {
  const month = periodOf('month', at);
  const last = previousMonth(month);
  const lastMonthApps = await db
    .selectFrom('usage_counters')
    .select('app_id')
    .distinct()
    .where('period', '=', last)
    .where('meter', 'in', COMPUTE_METERS)
    .execute();
  const lastMonthAt = new Date(`${last}-01T00:00:00Z`);
  const reenabledAppIds: string[] = [];
  for (const { app_id } of lastMonthApps) {
    const [caps, counters] = await Promise.all([capsOfApp(db, app_id), readCounters(db, app_id, COMPUTE_METERS, lastMonthAt)]);
    if (computeUse(counters, caps).exhausted) reenabledAppIds.push(app_id);
  }
  reenabledAppIds.sort();
  const inserted = await db
    .insertInto('usage_resets')
    .values({ period: month, ran_at: at, reenabled_app_ids: JSON.stringify(reenabledAppIds) })
    .onConflict((oc) => oc.column('period').doNothing())
    .returning(sql<number>`1`.as('one'))
    .executeTakeFirst();
  if (inserted) return { month, ranAt: at.toISOString(), reenabledAppIds, recorded: true };
  const existing = await db.selectFrom('usage_resets').selectAll().where('period', '=', month).executeTakeFirstOrThrow();
  return { month, ranAt: existing.ran_at.toISOString(), reenabledAppIds: existing.reenabled_app_ids, recorded: false };
}
