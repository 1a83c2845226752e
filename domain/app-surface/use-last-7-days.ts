import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';

const DAY_MS = 86_400_000;
export const USE_DAYS = 7;

/**
 * Each app's opens and visitors over the last 7 UTC days (today included), from the app log's
 * daily roll-ups: one statement for any number of apps, costing days, not events.
 */
export async function useLast7Days(db: DbOrTrx, appIds: readonly string[], now: Date) {
  const use = new Map<string, { opens: number; visitors: number }>(appIds.map((id) => [id, { opens: 0, visitors: 0 }]));
  if (appIds.length === 0) return use;
  const since = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - (USE_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const { rows } = await sql<{ app_id: string; opens: number; visitors: number }>`
    SELECT a.id AS app_id,
      (SELECT coalesce(sum(count), 0)::int FROM app_log_daily d
         WHERE d.app_id = a.id AND d.day >= ${since}::date AND d.kind = 'usage' AND d.name = 'open') AS opens,
      (SELECT count(*)::int FROM app_log_visitors v WHERE v.app_id = a.id AND v.last_day >= ${since}::date) AS visitors
    FROM apps a WHERE a.id = ANY(${[...appIds]}::text[])`.execute(db);
  for (const row of rows) use.set(row.app_id, { opens: row.opens, visitors: row.visitors });
  return use;
}
