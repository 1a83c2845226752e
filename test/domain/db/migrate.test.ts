import { describe, expect, it } from 'vitest';
import { migrations } from '../../../domain/db/migrations/index.ts';

describe('migration names', () => {
  // Kysely runs pending migrations in plain string order of their names, whatever the list order.
  it('sort as strings in the order they are declared', () => {
    const declared = Object.keys(migrations);
    expect([...declared].sort()).toEqual(declared);
  });

  it('follow `<ISO date>.<n>-<what>` or `<ISO date>T<hhmm>-<what>`', () => {
    for (const name of Object.keys(migrations)) expect(name).toMatch(/^\d{4}-\d{2}-\d{2}(\.\d|T\d{4})-[a-z0-9-]+$/);
  });
});
