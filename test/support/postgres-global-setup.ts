import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { TestProject } from 'vitest/node';
import { connectDatabase } from '../../domain/db/connect.ts';
import { migrateToLatest } from '../../domain/db/migrate.ts';
import { startEmbeddedPostgres } from '../../infra/postgres/embedded-postgres.ts';
import { TEMPLATE_DATABASE, urlFor } from './postgres-urls.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin connection string of the test server (database `postgres`). */
    postgresAdminUrl: string;
  }
}

/**
 * Starts one real PostgreSQL for the run (embedded, or the server named by
 * SVC_TEST_DATABASE_URL) and migrates a template database that test files clone.
 */
export default async function setup(project: TestProject) {
  let adminUrl = process.env.SVC_TEST_DATABASE_URL;
  let stop = async () => {};
  if (!adminUrl) {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-test-pg-'));
    await fs.chmod(dataDir, 0o755); // PostgreSQL runs as `postgres` when we are root
    const pg = await startEmbeddedPostgres({ dataDir, database: 'postgres' });
    adminUrl = pg.url;
    stop = async () => {
      await pg.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    };
  }

  const admin = connectDatabase({ connectionString: adminUrl, maxConnections: 1 });
  await sql`DROP DATABASE IF EXISTS ${sql.id(TEMPLATE_DATABASE)}`.execute(admin);
  await sql`CREATE DATABASE ${sql.id(TEMPLATE_DATABASE)}`.execute(admin);
  await admin.destroy();
  const template = connectDatabase({ connectionString: urlFor(adminUrl, TEMPLATE_DATABASE), maxConnections: 1 });
  await migrateToLatest(template);
  await template.destroy();

  project.provide('postgresAdminUrl', adminUrl);
  return stop;
}
