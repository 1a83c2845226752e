import { z } from 'zod';

// Usage contracts shared by the service and the CLI (GET …/apps/{namespace}/{slug}/usage).

const Minutes = z.number().nonnegative().meta({ description: 'Minutes, to the millisecond (3 decimals).' });

const DailyCount = z.object({ used: z.number().int().nonnegative(), limit: z.number().int().nonnegative(), exhausted: z.boolean() });

export const AppUsage = z
  .object({
    app: z.object({ namespace: z.string(), slug: z.string() }),
    month: z.string().meta({ description: 'The UTC month counted, `YYYY-MM`.' }),
    day: z.string().meta({ description: 'The UTC day of the daily meters, `YYYY-MM-DD`.' }),
    computeMinutes: z.object({
      used: Minutes,
      live: Minutes.meta({ description: 'Realtime connections.' }),
      workflow: Minutes.meta({ description: 'App workflow runs.' }),
      model: Minutes.meta({ description: 'Model and transcription calls.' }),
      limit: z.number().int(),
      warning: z.boolean().meta({ description: 'At least 80 percent of the limit is used.' }),
      exhausted: z
        .boolean()
        .meta({ description: 'Ticket requests answer 429 quota_exhausted and triggers do not start until `resetsAt`.' }),
      resetsAt: z.iso.datetime().meta({ description: '00:00 UTC on the 1st of next month.' }),
    }),
    tokensToday: DailyCount,
    realtimeSessionsToday: DailyCount,
    worldCreditsToday: DailyCount,
    notificationsToday: z.object({
      sent: z.number().int().nonnegative(),
      blocked: z.number().int().nonnegative().meta({ description: 'Over the daily cap: recorded, not sent.' }),
      limit: z.number().int(),
    }),
    modelCostThisMonth: z.object({
      spentMicroUsd: z.number().int().nonnegative(),
      budgetMicroUsd: z.number().int().nullable().meta({ description: 'monthlyBudgetUsd in micro-USD; null when unset.' }),
      exhausted: z.boolean(),
    }),
    limits: z.record(z.string(), z.number()).meta({ description: 'Every cap in effect (manifest `limits` with the defaults filled in).' }),
    nextScheduledRun: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'The next run of the app workflow’s schedule trigger; null while the app has none.' }),
    emailConfigured: z.boolean().meta({ description: 'Whether the service has an email channel for notify steps.' }),
    lastReset: z
      .object({ month: z.string(), ranAt: z.iso.datetime() })
      .nullable()
      .meta({ description: 'The latest monthly reset the schedule recorded.' }),
  })
  .meta({ id: 'AppUsage' });
export type AppUsage = z.input<typeof AppUsage>;
