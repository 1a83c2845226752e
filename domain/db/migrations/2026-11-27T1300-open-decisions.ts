import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Each process reuses an app open's decision and ticket while nothing it was judged on has
  // changed (domain/hosting/reusable-opens.ts). Shares were watched only for what ends them; a new
  // share or a changed role may also change a visitor's role, and resource grants (rule 4) were
  // not watched at all.
  await sql`CREATE TRIGGER app_shares_notify_open_decisions
    AFTER INSERT OR UPDATE OF role ON app_shares
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
  await sql`CREATE TRIGGER resource_grants_notify_principals
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON resource_grants
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER resource_grants_notify_principals ON resource_grants`.execute(db);
  await sql`DROP TRIGGER app_shares_notify_open_decisions ON app_shares`.execute(db);
}
