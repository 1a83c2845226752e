import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // A page's ticket cookie keeps the ticket the page opened with; its files are admitted by the
  // newest ticket renewed from it (domain/hosting/admit-ticket-cookie.ts), found along renewed_from.
  await sql`CREATE INDEX app_tickets_renewed_from ON app_tickets (renewed_from) WHERE renewed_from IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX app_tickets_renewed_from`.execute(db);
}
