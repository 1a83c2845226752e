import { describe, expect, it } from 'vitest';
import { compareMigrationNames } from '../../../domain/db/migrate.ts';
import { migrations } from '../../../domain/db/migrations/index.ts';

describe('compareMigrationNames', () => {
  it('runs step 10 after step 9 of the same date, and a later date after both', () => {
    const names = ['2026-11-23.1-later', '2026-11-22.10-ten', '2026-11-22.9-nine', '2026-11-22.2-two'];
    expect(names.sort(compareMigrationNames)).toEqual(['2026-11-22.2-two', '2026-11-22.9-nine', '2026-11-22.10-ten', '2026-11-23.1-later']);
  });

  it('keeps the listed migrations in the order they are declared', () => {
    const declared = Object.keys(migrations);
    expect([...declared].sort(compareMigrationNames)).toEqual(declared);
  });
});
