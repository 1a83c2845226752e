import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { inject } from 'vitest';
import { connectDatabase } from '../../domain/db/connect.ts';
import type { Db } from '../../domain/db/database.ts';
import { TEMPLATE_DATABASE, urlFor } from './postgres-urls.ts';

export interface TestDatabase {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

/** A fresh, migrated database of its own, cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('postgresAdminUrl');
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = connectDatabase({ connectionString: adminUrl, maxConnections: 1 });
  try {
    await sql`CREATE DATABASE ${sql.id(name)} TEMPLATE ${sql.id(TEMPLATE_DATABASE)}`.execute(admin);
  } finally {
    await admin.destroy();
  }
  const url = urlFor(adminUrl, name);
  const db = connectDatabase({ connectionString: url, maxConnections: 5 });
  return {
    url,
    db,
    async drop() {
      await db.destroy();
      const again = connectDatabase({ connectionString: adminUrl, maxConnections: 1 });
      await sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`.execute(again);
      await again.destroy();
    },
  };
}
