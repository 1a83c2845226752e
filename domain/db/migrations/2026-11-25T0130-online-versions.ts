import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Each process keeps the versions an app's channel tree serves in the principal cache
  // (domain/apps/hosted-apps.ts, findServedVersion): a channel move must empty it everywhere, so
  // that a version taken offline answers 404 at once. A release record is written only with a
  // pointer move, so the pointers are all there is to watch.
  await sql`CREATE TRIGGER apps_notify_principals
    AFTER UPDATE OF test_version_id, production_version_id OR DELETE OR TRUNCATE ON apps
    FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER apps_notify_principals ON apps`.execute(db);
}
