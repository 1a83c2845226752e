import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { connectDatabase } from '../../../domain/db/connect.ts';
import { compareMigrationNames, migrateToLatest } from '../../../domain/db/migrate.ts';
import { migrations } from '../../../domain/db/migrations/index.ts';
import { urlFor } from '../../support/postgres-urls.ts';

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
  it('applies every migration in the declared order on an empty database (step 10 after step 8), then nothing', async () => {
    const adminUrl = inject('postgresAdminUrl');
    const name = `svc_test_empty_${randomBytes(6).toString('hex')}`;
    const admin = connectDatabase({ connectionString: adminUrl, maxConnections: 1 });
    await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin);
    const db = connectDatabase({ connectionString: urlFor(adminUrl, name), maxConnections: 2 });
    try {
      expect(await migrateToLatest(db)).toEqual(Object.keys(migrations));
      expect(await migrateToLatest(db)).toEqual([]);
    } finally {
      await db.destroy();
      await sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`.execute(admin);
      await admin.destroy();
    }
  });
});
