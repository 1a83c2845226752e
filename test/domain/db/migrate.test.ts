import { describe, expect, it } from 'vitest';
import { compareMigrationNames } from '../../../domain/db/migrate.ts';
import { migrations } from '../../../domain/db/migrations/index.ts';
import { createTestDatabase } from '../../support/database.ts';

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

describe('migrateToLatest', () => {
  it('has run every declared migration on the test template, step 11 after step 8', async () => {
    const database = await createTestDatabase();
    try {
      const rows = await database.db
        .selectFrom('kysely_migration' as never)
        .select(['name' as never])
        .orderBy('timestamp' as never)
        .execute();
      const names = rows.map((r) => (r as { name: string }).name);
      expect(names).toEqual(Object.keys(migrations));
    } finally {
      await database.drop();
    }
  });
});
