// Durations are written as a positive integer and a unit: 30s, 5m, 1h, 7d.
import { z } from 'zod';
import { custom } from './patterns.ts';

const DURATION_PATTERN = /^([1-9][0-9]{0,5})(s|m|h|d)$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;

/** Seconds of a duration string; undefined when the text is not a duration. */
export function durationSeconds(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
}

/** Duration string bounded by `min` and `max` (both duration strings, inclusive). */
export function duration(min: string, max: string) {
  const low = durationSeconds(min) ?? 0;
  const high = durationSeconds(max) ?? Infinity;
  return z
    .string()
    .regex(DURATION_PATTERN, 'must be a duration such as 30s, 5m, 1h or 7d')
    .check(
      z.superRefine((text, ctx) => {
        const seconds = durationSeconds(text) ?? low;
        if (seconds < low) custom(ctx, 'duration_too_short', `${text} is shorter than the minimum ${min}`, []);
        if (seconds > high) custom(ctx, 'duration_too_long', `${text} is longer than the maximum ${max}`, []);
      }),
    );
}
