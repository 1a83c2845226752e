import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorTable } from '../../api/http/openapi.ts';
import { ERRORS } from '../../schemas/errors.ts';

describe('the error table', () => {
  it('gives every code one HTTP status of the 4xx or 5xx range and a meaning', () => {
    for (const [code, { status, meaning }] of Object.entries(ERRORS)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(meaning.length, code).toBeGreaterThan(5);
    }
  });

  it('is printed in docs/api/errors.md exactly as the OpenAPI document describes it', () => {
    const doc = readFileSync(new URL('../../docs/api/errors.md', import.meta.url), 'utf8');
    expect(doc).toContain(errorTable());
    expect(errorTable().split('\n')).toHaveLength(Object.keys(ERRORS).length + 2);
  });
});
