// Per-app resource caps (spec "Limits"). Every cap has a default and an upper bound: no app is
// unlimited, and raising a cap above its default only produces a deploy warning.
import { z } from 'zod';

export const LIMIT_DEFAULTS = {
  computeMinutesPerMonth: 2000,
  dailyTokens: 1_000_000,
  requestsPerMinute: 30,
  realtimeSessionsPerDay: 100,
  notificationsPerDay: 20,
  worldCreditsPerDay: 0,
} as const;

// Upper bounds (the spec leaves them open): roughly 50x the default, enough for a busy
// company app while keeping a runaway manifest from disabling the cap in practice.
export const LIMIT_MAXIMUMS = {
  computeMinutesPerMonth: 100_000,
  dailyTokens: 50_000_000,
  requestsPerMinute: 1_500,
  realtimeSessionsPerDay: 5_000,
  notificationsPerDay: 1_000,
  monthlyBudgetUsd: 10_000,
  worldCreditsPerDay: 1_000,
} as const;

type CappedLimit = keyof typeof LIMIT_DEFAULTS;

// worldCreditsPerDay defaults to 0 (view only); every other cap is at least 1.
function cap(key: CappedLimit) {
  const min = key === 'worldCreditsPerDay' ? 0 : 1;
  return z.number().int().min(min).max(LIMIT_MAXIMUMS[key]).default(LIMIT_DEFAULTS[key]);
}

export const limitsSchema = z
  .strictObject({
    computeMinutesPerMonth: cap('computeMinutesPerMonth'),
    dailyTokens: cap('dailyTokens'),
    requestsPerMinute: cap('requestsPerMinute'),
    realtimeSessionsPerDay: cap('realtimeSessionsPerDay'),
    notificationsPerDay: cap('notificationsPerDay'),
    // Unset means no budget cap beyond the others; setting one only restricts, so never warns.
    monthlyBudgetUsd: z.number().positive().max(LIMIT_MAXIMUMS.monthlyBudgetUsd).optional(),
    worldCreditsPerDay: cap('worldCreditsPerDay'),
  })
  .prefault({});

export type Limits = z.output<typeof limitsSchema>;

/** Caps set above their default, in the order of LIMIT_DEFAULTS. */
export function limitsAboveDefault(limits: Limits): { key: CappedLimit; value: number; defaultValue: number }[] {
  return (Object.keys(LIMIT_DEFAULTS) as CappedLimit[])
    .filter((key) => limits[key] > LIMIT_DEFAULTS[key])
    .map((key) => ({ key, value: limits[key], defaultValue: LIMIT_DEFAULTS[key] }));
}
