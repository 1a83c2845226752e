// The meters: what is counted, in which unit, per UTC month or UTC day (spec "Limits"). A
// counter's period comes from the time of the usage itself, never from when it is written, so a
// late or batched increment still lands in the month or day it happened in.

export type PeriodKind = 'month' | 'day';

export const METERS = {
  /** Compute time of realtime connections, in milliseconds. */
  'compute.live': { period: 'month', unit: 'ms' },
  /** Compute time of app workflow runs and of automation effects, in milliseconds. */
  'compute.workflow': { period: 'month', unit: 'ms' },
  /** Compute time of model and transcription calls, in milliseconds. */
  'compute.model': { period: 'month', unit: 'ms' },
  /** Priced model cost, in micro-USD (integer millionths of a dollar). */
  'model.cost': { period: 'month', unit: 'micro-usd' },
  'model.tokens': { period: 'day', unit: 'tokens' },
  'realtime.sessions': { period: 'day', unit: 'sessions' },
  'notifications.sent': { period: 'day', unit: 'emails' },
  /** Notify-step emails over notificationsPerDay: recorded, not sent. */
  'notifications.blocked': { period: 'day', unit: 'emails' },
  'world.credits': { period: 'day', unit: 'credits' },
} as const satisfies Record<string, { period: PeriodKind; unit: string }>;

export type Meter = keyof typeof METERS;
export const METER_NAMES = Object.keys(METERS) as [Meter, ...Meter[]];
export const COMPUTE_METERS = ['compute.live', 'compute.workflow', 'compute.model'] as const satisfies readonly Meter[];

/** `2026-11` for a monthly meter, `2026-11-30` for a daily one, in UTC. */
export function periodOf(kind: PeriodKind, at: Date): string {
  const iso = at.toISOString();
  return kind === 'month' ? iso.slice(0, 7) : iso.slice(0, 10);
}

export const meterPeriod = (meter: Meter, at: Date) => periodOf(METERS[meter].period, at);

/** 00:00 UTC on the 1st of the month after `at`. */
export function nextMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** 00:00 UTC of the day after `at`. */
export function nextDayStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** The month before `period` (`2026-01` → `2025-12`). */
export function previousMonth(period: string): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return periodOf('month', new Date(Date.UTC(year, month - 2, 1)));
}
