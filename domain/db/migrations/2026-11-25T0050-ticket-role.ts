import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The visitor's role in the ticket's app, given by the app-open rule when the ticket is issued:
  // the data layer, workflows and MCP act on it (domain/policy). Additive: tickets issued before
  // this migration read as viewer (the least role) until renewed, when access is judged again.
  await sql`ALTER TABLE app_tickets ADD COLUMN role text NOT NULL DEFAULT 'viewer'
    CHECK (role IN ('developer', 'member', 'editor', 'viewer'))`.execute(db);
  await sql`ALTER TABLE app_tickets ALTER COLUMN role DROP DEFAULT`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE app_tickets DROP COLUMN role`.execute(db);
}
