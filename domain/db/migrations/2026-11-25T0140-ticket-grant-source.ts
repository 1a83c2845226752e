import { type Kysely, sql } from 'kysely';

// Frozen: never edit a landed migration; add a new file instead.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The resource grant an app ticket was opened through (when no license or share admitted the
  // visitor): its rid and principal, the grant's key. Removing or lowering that grant revokes the
  // ticket in the same transaction (domain/resources/repository.ts), as removing a license does.
  // No foreign key: a removed grant must leave the revoked ticket behind, not delete it.
  await db.schema.alterTable('app_tickets').addColumn('grant_rid', 'text').addColumn('grant_principal', 'text').execute();
  await sql`CREATE INDEX app_tickets_grant ON app_tickets (grant_rid, grant_principal) WHERE grant_rid IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX app_tickets_grant`.execute(db);
  await db.schema.alterTable('app_tickets').dropColumn('grant_rid').dropColumn('grant_principal').execute();
}
