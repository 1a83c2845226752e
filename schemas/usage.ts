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
    nextScheduledRun: z.iso.datetime().nullable().meta({
      description:
        'The next run of the app workflow’s schedule trigger, as Temporal plans it; null while the app has none, while its schedule is paused or missing in Temporal, and while the month’s compute minutes are used up.',
    }),
    schedule: z
      .object({
        state: z.enum(['active', 'paused', 'missing', 'unconfirmed']).meta({
          description:
            'Temporal’s state of the app’s schedule: `active`; `paused` (in the Temporal Web UI: no run starts until it is resumed there); `missing` (deleted in Temporal: svc makes it again within 5 minutes); `unconfirmed` (Temporal did not answer, or this process does not reach it: the times are computed from the manifest).',
        }),
        note: z.string().nullable().meta({ description: 'The note given when it was paused or resumed in Temporal.' }),
        nextActionTimes: z
          .array(z.iso.datetime())
          .meta({ description: 'Its next start times as Temporal computes them (shown for a paused schedule too: when it would run).' }),
      })
      .nullable()
      .meta({ description: 'The app workflow’s schedule trigger as Temporal holds it; null while the app has none.' }),
    emailConfigured: z.boolean().meta({ description: 'Whether the service has an email channel for notify steps.' }),
    lastReset: z
      .object({ month: z.string(), ranAt: z.iso.datetime() })
      .nullable()
      .meta({ description: 'The latest monthly reset the schedule recorded.' }),
  })
  .meta({ id: 'AppUsage' });
export type AppUsage = z.input<typeof AppUsage>;
