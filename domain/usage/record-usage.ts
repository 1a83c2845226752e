import { sql } from 'kysely';
import type { DbOrTrx } from '../db/index.ts';
import { type Meter, meterPeriod } from './meters.ts';

/** One metered use: how much of a meter an app used, and when (which picks its period). */
export interface UsageIncrement {
  appId: string;
  meter: Meter;
  /** A non-negative integer in the meter's unit (milliseconds, tokens, micro-USD, …). */
  amount: number;
  at: Date;
}

/** Amounts are non-negative integers in the meter's unit; anything else is a producer's bug. */
export function assertValidIncrement(inc: UsageIncrement): void {
  if (!Number.isSafeInteger(inc.amount) || inc.amount < 0)
    throw new RangeError(`usage amount must be a non-negative integer: ${inc.amount}`);
}

/**
 * Adds increments to their counters in one statement: an upsert that adds to the stored amount,
 * so concurrent writers (other requests, other processes) never lose an increment. Increments of
 * one counter are summed first (one row may appear only once in an upsert), and rows go in key
 * order so that two overlapping batches lock their rows in the same order and cannot deadlock.
 */
export async function recordUsage(db: DbOrTrx, increments: readonly UsageIncrement[]): Promise<void> {
  const sums = new Map<string, { app_id: string; meter: Meter; period: string; amount: number }>();
  for (const inc of increments) {
    if (!Number.isSafeInteger(inc.amount) || inc.amount < 0)
      throw new RangeError(`usage amount must be a non-negative integer: ${inc.amount}`);
    if (inc.amount === 0) continue;
    const period = meterPeriod(inc.meter, inc.at);
    const key = `${inc.appId}\u0000${inc.meter}\u0000${period}`;
    const row = sums.get(key);
    if (row) row.amount += inc.amount;
    else sums.set(key, { app_id: inc.appId, meter: inc.meter, period, amount: inc.amount });
  }
  if (sums.size === 0) return;
  const rows = [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  await db
    .insertInto('usage_counters')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['app_id', 'meter', 'period'])
        .doUpdateSet({ amount: sql`usage_counters.amount + excluded.amount`, updated_at: sql`now()` }),
    )
    .execute();
}
