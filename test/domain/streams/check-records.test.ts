import { describe, expect, it } from 'vitest';
import { recordProblems } from '../../../domain/streams/check-records.ts';
import { STREAM_LIMITS, type StreamField } from '../../../schemas/streams.ts';

// A pushed record against its stream's schema, at each type's bounds: what is refused, and by which path.

const field = (name: string, type: StreamField['type'], required = false): StreamField => ({ name, type, required });
const paths = (fields: StreamField[], records: Record<string, unknown>[]) => recordProblems(fields, records).map((p) => p.path);

describe('recordProblems', () => {
  it('takes each type at its bounds and refuses one past them', () => {
    const cases: [StreamField['type'], unknown[], unknown[]][] = [
      ['string', ['', 'x'.repeat(STREAM_LIMITS.stringChars)], ['x'.repeat(STREAM_LIMITS.stringChars + 1), 1, true, {}, []]],
      ['integer', [2 ** 31 - 1, -(2 ** 31 - 1), 0], [2 ** 31, -(2 ** 31), 1.5, '1']],
      ['long', [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER], [2 ** 53, 0.5, '9']],
      ['double', [0.1, -1e308, 3], ['1.0', false]],
      ['boolean', [true, false], ['true', 0]],
      ['date', ['2024-02-29', '2026-12-31'], ['2026-02-29', '2026-13-01', '2026-1-01', '2026-11-28T00:00:00Z', 20261128]],
      [
        'timestamp',
        ['2026-11-28T10:00:00Z', '2026-11-28T10:00:00.123456+05:30', '2026-11-28T10:00-01:00'],
        ['2026-11-28T10:00:00', '2026-11-28 10:00:00Z', '2026-11-28T25:00:00Z', 'yesterday', 0],
      ],
    ];
    for (const [type, good, bad] of cases) {
      const fields = [field('v', type)];
      expect(
        paths(
          fields,
          good.map((v) => ({ v })),
        ),
        `${type}: ${JSON.stringify(good)}`,
      ).toEqual([]);
      expect(
        paths(
          fields,
          bad.map((v) => ({ v })),
        ),
        `${type}: ${JSON.stringify(bad)}`,
      ).toEqual(bad.map((_, i) => `records[${i}].v`));
    }
  });

  it('refuses unknown keys (own keys only: constructor and __proto__ are unknown) and missing required fields; null is absent', () => {
    const fields = [field('id', 'string', true), field('note', 'string')];
    const hostile = JSON.parse('{"id":"a","__proto__":{"x":1},"constructor":"c","toString":"t"}') as Record<string, unknown>;
    expect(paths(fields, [hostile, { note: 'n' }, { id: null }, { id: 'b', note: null }])).toEqual([
      'records[0].__proto__',
      'records[0].constructor',
      'records[0].toString',
      'records[1].id',
      'records[2].id',
    ]);
  });

  it('cuts a huge unknown key in its path and message', () => {
    const key = 'k'.repeat(100_000);
    const [problem] = recordProblems([field('id', 'string')], [{ [key]: 1 }]);
    expect(problem!.path.length).toBeLessThan(300);
    expect(problem!.message.length).toBeLessThan(300);
  });
});
