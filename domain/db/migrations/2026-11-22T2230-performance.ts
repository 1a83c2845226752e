import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Every API process caches the principals behind keys (domain/keys/principal-cache.ts) and
  // drops its cache on this notification. Triggers, not the use cases, send it, so no write path
  // (revocation, license removal, role change, account disabling, deletes, TRUNCATE in tests)
  // can forget. NOTIFY is delivered at commit, once per transaction. last_used_at is not among
  // the columns, so recording key use does not empty the caches.
  await sql`
    CREATE FUNCTION notify_principals_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('svc_principals', '');
      RETURN NULL;
    END $$`.execute(db);
  const watched: [table: string, events: string][] = [
    ['developer_keys', 'UPDATE OF hash, account_id, company_id, role, revoked_at OR DELETE OR TRUNCATE'],
    ['accounts', 'UPDATE OF id, username, email, status, platform_staff OR DELETE OR TRUNCATE'],
    ['licenses', 'INSERT OR UPDATE OR DELETE OR TRUNCATE'],
    ['companies', 'UPDATE OF id, cell_id, name OR DELETE OR TRUNCATE'],
  ];
  for (const [table, events] of watched) {
    await sql`CREATE TRIGGER ${sql.id(`${table}_notify_principals`)} AFTER ${sql.raw(events)} ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
  }
}
