import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectDatabase } from '../../../domain/db/connect.ts';
import { migrations } from '../../../domain/db/migrations/index.ts';
import { urlFor } from '../../support/postgres-urls.ts';

// Migration 2026-11-22T2145-app-log moves the usage/open and share records of the two earlier
// tables into the one log store and drops them.

const name = `svc_test_${randomBytes(6).toString('hex')}`;
let db: Kysely<any>;
const adminUrl = () => inject('postgresAdminUrl');

beforeAll(async () => {
  const admin = connectDatabase({ connectionString: adminUrl(), maxConnections: 1 });
  await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin);
  await admin.destroy();
  db = connectDatabase({ connectionString: urlFor(adminUrl(), name), maxConnections: 2 });
}, 60_000);
afterAll(async () => {
  await db?.destroy();
  const admin = connectDatabase({ connectionString: adminUrl(), maxConnections: 1 });
  await sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`.execute(admin);
  await admin.destroy();
});

describe('2026-11-22T2145-app-log', () => {
  it('moves app_opens and app_share_records into app_log_events', async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('2026-11-22T2100-company-initialization')).error).toBeUndefined();
    await sql`INSERT INTO accounts (id, username, email, status) VALUES ('acc_1', 'ann', 'ann@example.com', 'active')`.execute(db);
    await sql`INSERT INTO apps (id, namespace, slug, created_by) VALUES ('app_1', 'public', 'one', 'acc_1')`.execute(db);
    await sql`INSERT INTO app_versions (id, app_id, version, build, digest, manifest, size, file_count, sdk_used, skills, warnings, created_by)
      VALUES ('ver_1', 'app_1', '1.0.0', 1, 'd', '{}', 0, 0, '[]', '[]', '[]', 'acc_1')`.execute(db);
    await sql`INSERT INTO app_opens (id, app_id, version_id, channel, account_id, via_share, at)
      VALUES ('open_1', 'app_1', 'ver_1', 'production', 'acc_1', 'shr_1', '2026-11-01T10:00:00Z')`.execute(db);
    await sql`INSERT INTO app_share_records (id, app_id, at, name, share_id, audience, object, role, expires_at, actor_account_id)
      VALUES ('rec_1', 'app_1', '2026-11-02T10:00:00Z', 'share/revoke', 'shr_1', 'users', 'acc_2', 'editor', '2026-12-01T00:00:00Z', 'acc_1')`.execute(
      db,
    );

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const rows = await sql<Record<string, unknown>>`
      SELECT id, app_id, at, kind, source, name, account_id, version_id, channel, data, status FROM app_log_events ORDER BY at`.execute(db);
    expect(rows.rows).toEqual([
      {
        id: 'open_1',
        app_id: 'app_1',
        at: new Date('2026-11-01T10:00:00Z'),
        kind: 'usage',
        source: 'service',
        name: 'open',
        account_id: 'acc_1',
        version_id: 'ver_1',
        channel: 'production',
        data: { viaShare: 'shr_1' },
        status: null,
      },
      {
        id: 'rec_1',
        app_id: 'app_1',
        at: new Date('2026-11-02T10:00:00Z'),
        kind: 'share',
        source: 'service',
        name: 'revoke',
        account_id: 'acc_1',
        version_id: null,
        channel: null,
        status: null,
        data: { shareId: 'shr_1', audience: 'users', object: 'acc_2', role: 'editor', expiresAt: '2026-12-01T00:00:00.000Z' },
      },
    ]);
    const daily = await sql`SELECT day::text, kind, name, count FROM app_log_daily ORDER BY day`.execute(db);
    expect(daily.rows).toEqual([
      { day: '2026-11-01', kind: 'usage', name: 'open', count: 1 },
      { day: '2026-11-02', kind: 'share', name: 'revoke', count: 1 },
    ]);
    const visitors = await sql`SELECT account_id, last_day::text FROM app_log_visitors`.execute(db);
    expect(visitors.rows).toEqual([{ account_id: 'acc_1', last_day: '2026-11-01' }]);
    const tables = await sql<{
      t: string | null;
    }>`SELECT to_regclass('app_opens')::text AS t UNION ALL SELECT to_regclass('app_share_records')::text`.execute(db);
    expect(tables.rows).toEqual([{ t: null }, { t: null }]);
  });
});
