import { describe, expect, it } from 'vitest';
import { goalMet, verdict } from '../../bench/support/report.ts';

// `npm run bench` marks each figure ✓ or ✗ against its goal, read from the goal's text.
describe('goalMet', () => {
  it('compares the value with a bound in the figure’s unit', () => {
    expect(goalMet({ name: 'latency', value: 89.8, unit: 'ms', goal: '< 100 ms' })).toBe(true);
    expect(goalMet({ name: 'latency', value: 101, unit: 'ms', goal: '< 100 ms' })).toBe(false);
    expect(goalMet({ name: 'latency', value: 100, unit: 'ms', goal: '< 100 ms' })).toBe(false);
    expect(goalMet({ name: 're-upload', value: 0.3, unit: 'x', goal: '<= 0.3' })).toBe(true);
    expect(goalMet({ name: '5xx', value: 0, unit: 'answers', goal: '0' })).toBe(true);
    expect(goalMet({ name: '5xx', value: 2, unit: 'answers', goal: '0' })).toBe(false);
  });

  it('compares a ratio goal with value / same-run baseline, and judges none without a baseline', () => {
    expect(goalMet({ name: 'keyed', value: 4727, unit: 'req/s', baseline: 7654, goal: '>= 0.5x bare Koa' })).toBe(true);
    expect(goalMet({ name: 'keyed', value: 3000, unit: 'req/s', baseline: 7654, goal: '>= 0.5x bare Koa' })).toBe(false);
    expect(goalMet({ name: 'keyed', value: 3000, unit: 'req/s', goal: '>= 0.5x bare Koa' })).toBeUndefined();
  });

  it('leaves goals it cannot read to the reader', () => {
    expect(goalMet({ name: 'growth', value: 0.1, unit: 'MB/min', goal: 'flat (about 0)' })).toBeUndefined();
    expect(goalMet({ name: 'no goal', value: 1, unit: 'ms' })).toBeUndefined();
    expect(verdict({ name: 'growth', value: 0.1, unit: 'MB/min', goal: 'flat (about 0)' })).toBe('');
    expect(verdict({ name: 'latency', value: 1, unit: 'ms', goal: '< 10 ms' })).toBe('✓');
  });
});
