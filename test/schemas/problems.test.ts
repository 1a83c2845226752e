import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatPath, issuesToProblems } from '../../schemas/problems.ts';

describe('formatPath', () => {
  it('joins identifier keys with dots and indices with brackets', () => {
    expect(formatPath('manifest', ['exports', 0, 'where', 'status', 'gt'])).toBe('manifest.exports[0].where.status.gt');
  });
  it('JSON-quotes keys that are not identifiers', () => {
    expect(formatPath('manifest', ['limits', 'a b', 'x.y'])).toBe('manifest.limits["a b"]["x.y"]');
    expect(formatPath('files', [3, 'path'])).toBe('files[3].path');
  });
  it('returns the root alone for an empty path', () => {
    expect(formatPath('manifest')).toBe('manifest');
  });
});

describe('issuesToProblems', () => {
  const schema = z.strictObject({
    a: z.union([z.string(), z.strictObject({ b: z.number() })]),
    c: z.union([z.string(), z.number()]),
  });
  const issues = (value: unknown) => {
    const result = schema.safeParse(value);
    if (result.success) throw new Error('expected failure');
    return issuesToProblems(result.error.issues, 'root');
  };

  it('reports one problem per unknown key, at the key', () => {
    expect(issues({ a: 'x', c: 1, d: 1, e: 2 })).toEqual([
      { path: 'root.d', code: 'unrecognized_keys', message: 'Unknown key "d"' },
      { path: 'root.e', code: 'unrecognized_keys', message: 'Unknown key "e"' },
    ]);
  });
  it('descends into the union branch that got further', () => {
    expect(issues({ a: { b: 'x' }, c: 1 })).toEqual([expect.objectContaining({ path: 'root.a.b', code: 'invalid_type' })]);
  });
  it('reports a union of scalars at the union with the expected types', () => {
    expect(issues({ a: 'x', c: true })).toEqual([
      { path: 'root.c', code: 'invalid_type', message: 'Invalid input: expected string or number' },
    ]);
  });
});
