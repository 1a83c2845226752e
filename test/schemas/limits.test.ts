import { describe, expect, it } from 'vitest';
import { LIMIT_DEFAULTS, LIMIT_MAXIMUMS, limitsAboveDefault } from '../../schemas/manifest/limits.ts';
import { expectProblemAt, parsed, problemsOf } from './manifest-helpers.ts';

describe('limits', () => {
  it('has the spec defaults', () => {
    expect(LIMIT_DEFAULTS).toEqual({
      computeMinutesPerMonth: 2000,
      dailyTokens: 1_000_000,
      requestsPerMinute: 30,
      realtimeSessionsPerDay: 100,
      notificationsPerDay: 20,
      worldCreditsPerDay: 0,
    });
  });

  it('every cap is bounded: the maximum is accepted, one more is not', () => {
    for (const [key, max] of Object.entries(LIMIT_MAXIMUMS)) {
      expect(problemsOf({ limits: { [key]: max } }), key).toEqual([]);
      expectProblemAt(problemsOf({ limits: { [key]: max + 1 } }), `manifest.limits.${key}`, 'too_big');
    }
  });

  it('no cap can be switched off with 0, a negative number or a non-integer', () => {
    for (const key of Object.keys(LIMIT_DEFAULTS).filter((k) => k !== 'worldCreditsPerDay')) {
      expectProblemAt(problemsOf({ limits: { [key]: 0 } }), `manifest.limits.${key}`, 'too_small');
      expectProblemAt(problemsOf({ limits: { [key]: 1.5 } }), `manifest.limits.${key}`, 'invalid_type');
    }
    expectProblemAt(problemsOf({ limits: { worldCreditsPerDay: -1 } }), 'manifest.limits.worldCreditsPerDay', 'too_small');
    expectProblemAt(problemsOf({ limits: { monthlyBudgetUsd: 0 } }), 'manifest.limits.monthlyBudgetUsd', 'too_small');
    expectProblemAt(problemsOf({ limits: { dailyTokens: null } }), 'manifest.limits.dailyTokens', 'invalid_type');
  });

  it('monthlyBudgetUsd is optional and may have cents', () => {
    expect(parsed().limits.monthlyBudgetUsd).toBeUndefined();
    expect(parsed({ limits: { monthlyBudgetUsd: 12.5 } }).limits.monthlyBudgetUsd).toBe(12.5);
  });

  it('limitsAboveDefault lists exactly the raised caps', () => {
    expect(limitsAboveDefault(parsed().limits)).toEqual([]);
    expect(
      limitsAboveDefault(
        parsed({ limits: { dailyTokens: 1_000_000, requestsPerMinute: 31, worldCreditsPerDay: 1, monthlyBudgetUsd: 500 } }).limits,
      ),
    ).toEqual([
      { key: 'requestsPerMinute', value: 31, defaultValue: 30 },
      { key: 'worldCreditsPerDay', value: 1, defaultValue: 0 },
    ]);
  });
});
