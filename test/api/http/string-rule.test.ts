import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertCleanStrings, stringProblems } from '../../../api/http/string-rule.ts';
import { DomainError } from '../../../domain/errors.ts';

describe('stringProblems', () => {
  it('finds U+0000 and unpaired surrogates in values and keys at any depth, each with its path', () => {
    const value = JSON.parse('{"a":["ok","x\\u0000"],"b\\udc00":{"c":"\\ud83d"},"d":"\\ud83d\\ude00","__proto__":1}');
    expect(stringProblems(value, '')).toEqual({
      problems: [
        { path: 'a[1]', code: 'invalid_string', message: expect.stringContaining('U+0000 (NUL) at character 1') },
        { path: '["b\\udc00"]', code: 'invalid_key', message: expect.stringContaining('unpaired surrogate at character 1') },
        { path: '["b\\udc00"].c', code: 'invalid_string', message: expect.stringContaining('unpaired surrogate at character 0') },
        { path: '__proto__', code: 'invalid_key', message: expect.stringContaining('is __proto__') },
      ],
      omittedProblems: 0,
    });
    expect(stringProblems({ q: 'a\u0000' }, 'query').problems[0]!.path).toBe('query.q');
  });

  it('accepts every well-formed string without U+0000, whatever else it holds', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value) ?? '';
        const clean = !text.includes('\\u0000') && text.isWellFormed() && !/"__proto__":/.test(text);
        expect(stringProblems(value, '').problems.length === 0).toBe(clean);
      }),
    );
  });

  it('walks a value nested a million deep without recursion', () => {
    let value: unknown = '\u0000';
    for (let i = 0; i < 1_000_000; i++) value = [value];
    const { problems } = stringProblems(value, 'deep');
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toHaveLength('deep'.length + 3 * 1_000_000);
  });

  it('names 100 problems and counts the others', () => {
    const { problems, omittedProblems } = stringProblems(
      Array.from({ length: 250 }, () => '\u0000'),
      'list',
    );
    expect(problems).toHaveLength(100);
    expect(problems.at(-1)!.path).toBe('list[99]');
    expect(omittedProblems).toBe(150);
  });
});

describe('assertCleanStrings', () => {
  it('throws invalid_payload with the problems, and nothing for a clean value', () => {
    expect(() => assertCleanStrings({ a: ['b', { c: 'd' }], e: 1, f: null }, '')).not.toThrow();
    const err = (() => {
      try {
        assertCleanStrings({ login: 'mi\u0000ke' }, '');
      } catch (e) {
        return e;
      }
    })() as DomainError;
    expect(err).toBeInstanceOf(DomainError);
    expect([err.code, err.details]).toEqual([
      'invalid_payload',
      { problems: [expect.objectContaining({ path: 'login', code: 'invalid_string' })] },
    ]);
  });

  // Flat objects of strings (path and query parameters) are checked without the walk: the same verdict as the walk's.
  it('throws exactly when the walk finds a problem, for flat objects of strings, keys such as __proto__ and inherited keys included', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('\u0000', '\ud83d', '\ude00', 'a\ud83d\ude00', '__proto__', 'x'.repeat(300) + '\u0000', 'x'.repeat(300)),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 5 }), fc.boolean(), (entries, inherits) => {
        const value: Record<string, unknown> = Object.create(inherits ? { inherited: '\u0000' } : Object.prototype);
        for (const [key, v] of entries)
          Object.defineProperty(value, key, { value: v, enumerable: true, writable: true, configurable: true });
        const walked = stringProblems(value, 'query').problems.length > 0;
        let thrown = false;
        try {
          assertCleanStrings(value, 'query');
        } catch (e) {
          expect(e).toBeInstanceOf(DomainError);
          thrown = true;
        }
        expect(thrown).toBe(walked);
      }),
      { numRuns: 500 },
    );
    expect(() => assertCleanStrings(undefined, '')).not.toThrow();
    expect(() => assertCleanStrings({ q: 'a\u0000' }, 'query')).toThrow(DomainError);
    expect(() => assertCleanStrings(JSON.parse('{"__proto__":"x"}'), 'query')).toThrow(DomainError);
  });
});
